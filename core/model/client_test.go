package model_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "sk-test-SECRET-123456"

func client(t *testing.T, s *modeltest.Server, wire string) model.Client {
	t.Helper()
	c, err := model.New(model.ProviderConfig{Name: "mock", BaseURL: s.URL(), APIKey: secret, WireAPI: wire, RetryBaseDelay: time.Millisecond, MaxRetryDelay: 20 * time.Millisecond, MaxRetries: 3})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type collector struct {
	mu      sync.Mutex
	text    strings.Builder
	resets  int
	retries []string
}

func (c *collector) on(d model.Delta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch d.Kind {
	case model.DeltaText:
		c.text.WriteString(d.Text)
	case model.DeltaReset:
		c.resets++
		c.text.Reset()
	case model.DeltaRetry:
		c.retries = append(c.retries, d.Text)
	}
}

var wires = []string{"chat", "responses"}

func req() model.Request {
	return model.Request{
		Model: "test-model", Instructions: "be brief",
		Items: []protocol.Item{
			protocol.UserMessage("hi"),
			protocol.FunctionCall("call_0", "read_file", `{"path":"a"}`),
			protocol.FunctionCallOutput("call_0", "L1: x"),
		},
		Tools:             []model.ToolSpec{{Name: "read_file", Description: "read", Parameters: []byte(`{"type":"object"}`)}},
		ParallelToolCalls: true,
	}
}

func TestTextAndUsage(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.NewServer(t)
			s.Enqueue(modeltest.Reply{Text: "hello there, world", Usage: protocol.TokenUsage{InputTokens: 10, OutputTokens: 3, TotalTokens: 13, CachedInputTokens: 4}})
			var col collector
			resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "hello there, world" || col.text.String() != resp.Text {
				t.Fatalf("text %q streamed %q", resp.Text, col.text.String())
			}
			if resp.Usage.InputTokens != 10 || resp.Usage.TotalTokens != 13 || resp.Usage.CachedInputTokens != 4 {
				t.Fatalf("usage %+v", resp.Usage)
			}
			got := s.Requests()[0]
			if got.Header.Get("Authorization") != "Bearer "+secret {
				t.Fatalf("auth header %q", got.Header.Get("Authorization"))
			}
			if _, ok := got.Body["reasoning_effort"]; ok {
				t.Fatal("reasoning_effort sent while empty")
			}
			if _, ok := got.Body["reasoning"]; ok {
				t.Fatal("reasoning sent while empty")
			}
			// The function call round trip is in the request.
			b := strings.Join([]string{toJSON(got.Body)}, "")
			if !strings.Contains(b, `"call_0"`) || !strings.Contains(b, `L1: x`) || !strings.Contains(b, "be brief") {
				t.Fatalf("history not mapped: %s", b)
			}
		})
	}
}

func TestChunkedAndParallelToolCalls(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.NewServer(t)
			args := `{"cmd":"go test ./... -run TestSomethingLong","timeout_ms":120000}`
			s.Enqueue(modeltest.Reply{ChunkSize: 3, ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: args}, {ID: "c2", Name: "read_file", Arguments: `{"path":"go.mod"}`}}})
			r := req()
			r.ReasoningEffort = "high"
			resp, err := client(t, s, wire).Stream(context.Background(), r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Arguments != args || resp.ToolCalls[0].CallID != "c1" || resp.ToolCalls[1].Name != "read_file" || resp.ToolCalls[1].Arguments != `{"path":"go.mod"}` {
				t.Fatalf("calls %+v", resp.ToolCalls)
			}
			body := toJSON(s.Requests()[0].Body)
			if !strings.Contains(body, `"high"`) {
				t.Fatalf("reasoning effort not sent: %s", body)
			}
		})
	}
}

func TestRetriesThenSuccessWithoutDuplicates(t *testing.T) {
	for _, wire := range wires {
		for _, fault := range []modeltest.Reply{
			{Status: 429, Header: map[string]string{"Retry-After": "0.01"}, Body: `{"error":{"message":"slow down"}}`},
			{Status: 500, Body: `{"error":{"message":"boom"}}`},
			{Reset: true},
			{Text: "The answer is forty-two.", DropAfterChunks: 4},
		} {
			name := wire + "/" + faultName(fault)
			t.Run(name, func(t *testing.T) {
				s := modeltest.NewServer(t)
				s.Enqueue(fault, modeltest.Reply{Text: "The answer is forty-two."})
				var col collector
				resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Text != "The answer is forty-two." || col.text.String() != resp.Text || col.resets != 0 {
					t.Fatalf("text %q streamed %q resets %d", resp.Text, col.text.String(), col.resets)
				}
				if len(col.retries) != 1 || !strings.Contains(col.retries[0], "mock") {
					t.Fatalf("retry notices %v", col.retries)
				}
				if len(s.Requests()) != 2 {
					t.Fatalf("%d requests", len(s.Requests()))
				}
			})
		}
	}
}

func faultName(r modeltest.Reply) string {
	switch {
	case r.Status != 0:
		return "status"
	case r.Reset:
		return "reset"
	}
	return "drop"
}

func TestDivergingRetryResets(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Text: "first version of text", DropAfterChunks: 4}, modeltest.Reply{Text: "second take"})
	var col collector
	resp, err := client(t, s, "chat").Stream(context.Background(), req(), col.on)
	if err != nil {
		t.Fatal(err)
	}
	if col.resets != 1 || col.text.String() != "second take" || resp.Text != "second take" {
		t.Fatalf("resets %d text %q", col.resets, col.text.String())
	}
}

func TestRetriesExhaustedNamesProviderNotKey(t *testing.T) {
	for _, wire := range wires {
		s := modeltest.NewServer(t)
		for i := 0; i < 4; i++ {
			s.Enqueue(modeltest.Reply{Status: 503, Body: `{"error":{"message":"overloaded"}}`})
		}
		_, err := client(t, s, wire).Stream(context.Background(), req(), nil)
		var apiErr *model.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Attempts != 4 {
			t.Fatalf("%s: %v", wire, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "503") || !strings.Contains(msg, "mock") || !strings.Contains(msg, s.URL()) || strings.Contains(msg, secret) {
			t.Fatalf("%s: message %q", wire, msg)
		}
	}
	// A 400 is not retried.
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Status: 400, Body: `{"error":{"message":"bad tool schema"}}`})
	_, err := client(t, s, "chat").Stream(context.Background(), req(), nil)
	if err == nil || !strings.Contains(err.Error(), "bad tool schema") || len(s.Requests()) != 1 {
		t.Fatalf("400: %v (%d requests)", err, len(s.Requests()))
	}
}

func TestErrorObjectInStream(t *testing.T) {
	for _, wire := range wires {
		s := modeltest.NewServer(t)
		s.Enqueue(modeltest.Reply{Text: "partial", StreamError: "context length exceeded"})
		resp, err := client(t, s, wire).Stream(context.Background(), req(), nil)
		if err == nil || !strings.Contains(err.Error(), "context length exceeded") || resp.Text != "" {
			t.Fatalf("%s: %v %q", wire, err, resp.Text)
		}
	}
}

func TestCancelStopsStream(t *testing.T) {
	s := modeltest.NewServer(t)
	block := make(chan struct{})
	s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		<-block
		return modeltest.Reply{Text: "late"}
	})
	defer close(block)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := client(t, s, "chat").Stream(ctx, req(), nil)
		done <- err
	}()
	for len(s.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestModels(t *testing.T) {
	s := modeltest.NewServer(t)
	c := client(t, s, "chat")
	s.SetModels([]string{"a", "b"}, 0)
	list, err := c.Models(context.Background())
	if err != nil || len(list) != 2 {
		t.Fatal(list, err)
	}
	s.SetModels(nil, 503)
	if list, err := c.Models(context.Background()); err != nil || len(list) != 2 {
		t.Fatalf("cached list expected: %v %v", list, err)
	}
	c2 := client(t, s, "chat")
	if _, err := c2.Models(context.Background()); !errors.Is(err, model.ErrModelsUnavailable) {
		t.Fatalf("503: %v", err)
	}
	s.SetModels(nil, 404)
	if _, err := c2.Models(context.Background()); !errors.Is(err, model.ErrModelsUnsupported) {
		t.Fatalf("404: %v", err)
	}
}

func TestScriptedConcurrent(t *testing.T) {
	sc := model.NewScripted("s", func(_ context.Context, r model.Request) (model.Response, error) {
		return model.Response{Text: "echo " + r.Model + " done"}, nil
	})
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var col collector
			resp, err := sc.Stream(context.Background(), model.Request{Model: "m"}, col.on)
			if err != nil || col.text.String() != "echo m done" || resp.Text != "echo m done" {
				t.Errorf("%v %q", err, col.text.String())
			}
		}()
	}
	wg.Wait()
}
