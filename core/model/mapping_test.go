package model_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// history has every item kind: developer and user messages (one with an
// image), assistant text followed by two parallel calls, their outputs,
// a reasoning item (which has no wire form), a lone call and a final
// assistant message.
func history() []protocol.Item {
	img := protocol.UserMessage("what is this?")
	img.Images = []string{"data:image/png;base64,AAAA"}
	return []protocol.Item{
		{Type: protocol.ItemMessage, Role: protocol.RoleDeveloper, Content: "project rules"},
		protocol.UserMessage("list and read"),
		{Type: protocol.ItemReasoning, Summary: "thinking"},
		protocol.AssistantMessage("Looking."),
		protocol.FunctionCall("c1", "list_dir", `{"path":"."}`),
		protocol.FunctionCall("c2", "read_file", `{"path":"go.mod"}`),
		protocol.FunctionCallOutput("c1", "a.go"),
		protocol.FunctionCallOutput("c2", "module x"),
		protocol.FunctionCall("c3", "exec_command", `{"cmd":"ls"}`),
		protocol.FunctionCallOutput("c3", "exit 0"),
		protocol.AssistantMessage("Done."),
		img,
	}
}

func captured(t *testing.T, wire string, r model.Request) map[string]any {
	t.Helper()
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Text: "ok"})
	if _, err := client(t, s, wire).Stream(context.Background(), r, nil); err != nil {
		t.Fatal(err)
	}
	return s.Requests()[0].Body
}

func TestChatRequestMapping(t *testing.T) {
	r := model.Request{Model: "m", Instructions: "be brief", Items: history(),
		Tools: []model.ToolSpec{{Name: "read_file", Description: "read", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "noop"}}}
	body := captured(t, "chat", r)
	want := roundTrip(t, []any{
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "system", "content": "project rules"},
		map[string]any{"role": "user", "content": "list and read"},
		map[string]any{"role": "assistant", "content": "Looking.", "reasoning_content": "thinking", "tool_calls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "list_dir", "arguments": `{"path":"."}`}},
			map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"go.mod"}`}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "a.go"},
		map[string]any{"role": "tool", "tool_call_id": "c2", "content": "module x"},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "c3", "type": "function", "function": map[string]any{"name": "exec_command", "arguments": `{"cmd":"ls"}`}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "c3", "content": "exit 0"},
		map[string]any{"role": "assistant", "content": "Done."},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "what is this?"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,AAAA"}},
		}},
	})
	if !reflect.DeepEqual(body["messages"], want) {
		t.Fatalf("messages:\n got %s\nwant %s", toJSON(body["messages"]), toJSON(want))
	}
	wantTools := roundTrip(t, []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "read_file", "description": "read", "parameters": map[string]any{"type": "object"}}},
		map[string]any{"type": "function", "function": map[string]any{"name": "noop", "parameters": map[string]any{"type": "object", "properties": map[string]any{}}}},
	})
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Fatalf("tools: %s", toJSON(body["tools"]))
	}
	if body["stream"] != true || !reflect.DeepEqual(body["stream_options"], map[string]any{"include_usage": true}) || body["parallel_tool_calls"] != false || body["model"] != "m" {
		t.Fatalf("body %s", toJSON(body))
	}
}

func TestResponsesRequestMapping(t *testing.T) {
	r := model.Request{Model: "m", Instructions: "be brief", Items: history(), ParallelToolCalls: true,
		Tools: []model.ToolSpec{{Name: "read_file", Description: "read", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	body := captured(t, "responses", r)
	msg := func(role, typ, text string) map[string]any {
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}
	}
	call := func(id, name, args string) map[string]any {
		return map[string]any{"type": "function_call", "call_id": id, "name": name, "arguments": args}
	}
	output := func(id, out string) map[string]any {
		return map[string]any{"type": "function_call_output", "call_id": id, "output": out}
	}
	want := roundTrip(t, []any{
		msg("developer", "input_text", "project rules"),
		msg("user", "input_text", "list and read"),
		msg("assistant", "output_text", "Looking."),
		call("c1", "list_dir", `{"path":"."}`),
		call("c2", "read_file", `{"path":"go.mod"}`),
		output("c1", "a.go"),
		output("c2", "module x"),
		call("c3", "exec_command", `{"cmd":"ls"}`),
		output("c3", "exit 0"),
		msg("assistant", "output_text", "Done."),
		map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "what is this?"},
			map[string]any{"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
		}},
	})
	if !reflect.DeepEqual(body["input"], want) {
		t.Fatalf("input:\n got %s\nwant %s", toJSON(body["input"]), toJSON(want))
	}
	wantTools := roundTrip(t, []any{map[string]any{"type": "function", "name": "read_file", "description": "read", "parameters": map[string]any{"type": "object"}, "strict": false}})
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Fatalf("tools: %s", toJSON(body["tools"]))
	}
	if body["instructions"] != "be brief" || body["store"] != false || body["stream"] != true || body["parallel_tool_calls"] != true {
		t.Fatalf("body %s", toJSON(body))
	}
}

func TestReasoningEffortOnlyWhenSet(t *testing.T) {
	for _, tc := range []struct {
		wire, effort string
		field        string
		want         any
	}{
		{"chat", "high", "reasoning_effort", "high"},
		{"chat", "", "reasoning_effort", nil},
		{"responses", "low", "reasoning", map[string]any{"effort": "low", "summary": "auto"}},
		{"responses", "", "reasoning", nil},
	} {
		t.Run(tc.wire+"/"+tc.effort, func(t *testing.T) {
			r := req()
			r.ReasoningEffort = tc.effort
			body := captured(t, tc.wire, r)
			got, ok := body[tc.field]
			if tc.want == nil && ok {
				t.Fatalf("%s sent while empty: %v", tc.field, got)
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s = %v, want %v", tc.field, got, tc.want)
			}
			// The other API's field is never sent.
			if _, ok := body["reasoning_effort"]; ok && tc.wire == "responses" {
				t.Fatal("reasoning_effort sent to the Responses API")
			}
			if _, ok := body["reasoning"]; ok && tc.wire == "chat" {
				t.Fatal("reasoning sent to Chat Completions")
			}
		})
	}
}

// An organisation without access to reasoning summaries gets a 400 naming
// reasoning.summary; the client asks again without it and remembers.
func TestReasoningSummaryRefusedFallsBack(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Status: 400, Body: `{"error":{"message":"Your organization must be verified to generate reasoning summaries.","type":"invalid_request_error","param":"reasoning.summary","code":"unsupported_value"}}`},
		modeltest.Reply{Text: "ok"}, modeltest.Reply{Text: "ok again"})
	c := client(t, s, "responses")
	r := req()
	r.ReasoningEffort = "medium"
	for _, want := range []string{"ok", "ok again"} {
		resp, err := c.Stream(context.Background(), r, nil)
		if err != nil || resp.Text != want {
			t.Fatalf("%q %v", resp.Text, err)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []any{map[string]any{"effort": "medium", "summary": "auto"}, map[string]any{"effort": "medium"}, map[string]any{"effort": "medium"}} {
		if got := reqs[i].Body["reasoning"]; !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d reasoning %v, want %v", i, got, want)
		}
	}
}

func TestBadToolSchemaIsAClearError(t *testing.T) {
	s := modeltest.NewServer(t)
	for _, wire := range wires {
		r := req()
		r.Tools = append(r.Tools, model.ToolSpec{Name: "broken", Parameters: json.RawMessage(`{"type":`)})
		_, err := client(t, s, wire).Stream(context.Background(), r, nil)
		if err == nil || !contains(err.Error(), "broken", "parameters") {
			t.Fatalf("%s: %v", wire, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests sent with a broken schema", n)
	}
}

func TestNewChecksConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  model.ProviderConfig
		want string
	}{
		{model.ProviderConfig{Name: "p"}, "base_url is empty"},
		{model.ProviderConfig{Name: "p", BaseURL: "localhost:8080/v1"}, "base_url"},
		{model.ProviderConfig{Name: "p", BaseURL: "ftp://x/v1"}, "base_url"},
		{model.ProviderConfig{Name: "p", BaseURL: "http://x/v1", WireAPI: "completions"}, "wire_api"},
		{model.ProviderConfig{Name: "p", BaseURL: "http://x/v1", Headers: map[string]string{"Bad Header": "x"}}, "http_headers"},
		{model.ProviderConfig{Name: "p", BaseURL: "http://x/v1", Headers: map[string]string{"X-A": "a\r\nb"}}, "http_headers"},
	} {
		_, err := model.New(tc.cfg)
		if err == nil || !contains(err.Error(), tc.want, "p") {
			t.Errorf("%+v: %v", tc.cfg, err)
		}
	}
}

// The wire API defaults to responses for api.openai.com and chat
// elsewhere; a query in the base URL (Azure's api-version) is kept; extra
// headers are sent and no Authorization without a key.
func TestDefaultsAndHeaders(t *testing.T) {
	s := modeltest.NewServer(t)
	mock, _ := url.Parse(s.URL())
	// Route every request to the mock, whatever host it names.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	toMock := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = mock.Scheme, mock.Host
		return tr.RoundTrip(r)
	})}
	for _, tc := range []struct {
		base, wantPath, wantQuery string
	}{
		{"https://api.openai.com/v1", "/v1/responses", ""},
		{"http://localhost:11434/v1/?api-version=2025-01-01", "/v1/chat/completions", "api-version=2025-01-01"},
	} {
		s.Enqueue(modeltest.Reply{Text: "ok"})
		c, err := model.New(model.ProviderConfig{Name: "p", BaseURL: tc.base, Headers: map[string]string{"X-Title": "grove"}, HTTPClient: toMock})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Stream(context.Background(), req(), nil); err != nil {
			t.Fatal(err)
		}
		reqs := s.Requests()
		got := reqs[len(reqs)-1]
		if got.Path != tc.wantPath || got.Query != tc.wantQuery || got.Header.Get("X-Title") != "grove" || got.Header.Get("Authorization") != "" {
			t.Fatalf("%s: path %s query %q headers %v", tc.base, got.Path, got.Query, got.Header)
		}
		if c.Name() != "p" {
			t.Fatalf("name %q", c.Name())
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
