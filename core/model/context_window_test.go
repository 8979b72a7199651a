package model_test

import (
	"context"
	"errors"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
)

// A request refused as too long for the context window is recognisable
// (errors.Is ErrContextWindowExceeded) whether the refusal is an HTTP 400
// (OpenAI's code context_length_exceeded, or only the wording) or an
// error inside the stream; other 400s are not.
func TestContextWindowRefusalIsRecognised(t *testing.T) {
	cases := []struct {
		name  string
		reply modeltest.Reply
		want  bool
	}{
		{"openai code", modeltest.Reply{Status: 400, Body: `{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`}, true},
		{"wording only", modeltest.Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.","type":"BadRequestError"}}`}, true},
		{"llama.cpp", modeltest.Reply{Status: 400, Body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`}, true},
		{"in stream", modeltest.Reply{Text: "x", StreamError: "context too big", StreamErrorType: "context_length_exceeded"}, true},
		{"other 400", modeltest.Reply{Status: 400, Body: `{"error":{"message":"Invalid value for 'model'","type":"invalid_request_error"}}`}, false},
	}
	for _, wire := range wires {
		for _, tc := range cases {
			s := modeltest.NewServer(t)
			s.Enqueue(tc.reply)
			_, err := client(t, s, wire).Stream(context.Background(), req(), nil)
			if err == nil {
				t.Fatalf("%s/%s: no error", wire, tc.name)
			}
			if got := errors.Is(err, model.ErrContextWindowExceeded); got != tc.want {
				t.Errorf("%s/%s: errors.Is(%v) = %v, want %v", wire, tc.name, err, got, tc.want)
			}
		}
	}
}

// The model list carries each model's context window when the provider
// says (OpenRouter's context_length); models it says nothing of have 0.
func TestModelsCarryContextWindow(t *testing.T) {
	s := modeltest.NewServer(t)
	s.SetModels([]string{"big", "plain"})
	s.SetContextWindows(map[string]int64{"big": 131072})
	list, err := client(t, s, "chat").Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, m := range list {
		got[m.ID] = m.ContextWindow
	}
	if got["big"] != 131072 || got["plain"] != 0 || len(got) != 2 {
		t.Fatalf("windows %v", got)
	}
}

func TestKnownContextWindow(t *testing.T) {
	for name, want := range map[string]int64{"gpt-5.1-codex": 272_000, "openai/gpt-4o-mini": 128_000, "gpt-4.1-mini": 1_047_576, "o3": 200_000, "my-local-model": 0} {
		if got := model.KnownContextWindow(name); got != want {
			t.Errorf("%s: %d, want %d", name, got, want)
		}
	}
}
