package model_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// A 200 HTML page (a login wall, a base_url without /v1) is one clear
// error, not five retries.
func TestHTMLPageIsOneClearError(t *testing.T) {
	for _, wire := range wires {
		s := modeltest.NewServer(t)
		s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
			return modeltest.Reply{ContentType: "text/html; charset=utf-8", Body: "<!doctype html><title>Sign in</title>"}
		})
		_, err := client(t, s, wire).Stream(context.Background(), req(), nil)
		if err == nil || !strings.Contains(err.Error(), "not an event stream") || len(s.Requests()) != 1 {
			t.Fatalf("%s: %v after %d requests", wire, err, len(s.Requests()))
		}
	}
}

// A parameter the provider rejects by name is dropped, the call retried
// once with a warning, and later calls leave it out from the start.
func TestRejectedParameterIsDroppedForTheProcess(t *testing.T) {
	for _, tc := range []struct {
		wire, param string
		rule        modeltest.Rule
	}{
		{"chat", "stream_options", modeltest.RejectParam("stream_options")},
		{"chat", "parallel_tool_calls", modeltest.RejectParamByMessage("parallel_tool_calls")},
		{"responses", "include", modeltest.RejectParam("include")},
	} {
		t.Run(tc.wire+"/"+tc.param, func(t *testing.T) {
			s := modeltest.NewServer(t)
			s.SetRules(tc.rule)
			s.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return modeltest.Reply{Text: "ok"} })
			c := client(t, s, tc.wire, func(c *model.ProviderConfig) { c.MaxRetries = new(0) })
			var col collector
			resp, err := c.Stream(context.Background(), req(), col.on)
			if err != nil || resp.Text != "ok" {
				t.Fatalf("%v %q", err, resp.Text)
			}
			if len(s.Requests()) != 2 || len(col.warnings) != 1 || !strings.Contains(col.warnings[0], tc.param) {
				t.Fatalf("%d requests, warnings %q", len(s.Requests()), col.warnings)
			}
			if _, err := c.Stream(context.Background(), req(), nil); err != nil {
				t.Fatal(err)
			}
			reqs := s.Requests()
			if len(reqs) != 3 {
				t.Fatalf("second call: %d requests in all", len(reqs))
			}
			for _, r := range reqs[1:] {
				if _, ok := r.Body[tc.param]; ok {
					t.Fatalf("%s still sent: %s", tc.param, r.Raw)
				}
			}
		})
	}
}

// Pydantic-based servers (Mistral) answer 422 with an object as message
// and the field in loc; the wording is the shape FastAPI/Pydantic v2 emit.
func TestRejectedParameterPydanticShape(t *testing.T) {
	s := modeltest.NewServer(t)
	s.SetRules(func(cr modeltest.CapturedRequest) *modeltest.Reply {
		if _, ok := cr.Body["stream_options"]; ok {
			return &modeltest.Reply{Status: 422, Body: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_error","param":null,"code":null}`}
		}
		return nil
	})
	s.Enqueue(modeltest.Reply{Text: "ok"})
	var col collector
	resp, err := client(t, s, "chat").Stream(context.Background(), req(), col.on)
	if err != nil || resp.Text != "ok" || len(col.warnings) != 1 || !strings.Contains(col.warnings[0], "stream_options") {
		t.Fatalf("%v %q %q", err, resp.Text, col.warnings)
	}
}

// A rejection that keeps coming is not retried forever.
func TestRejectedParameterRetriedOnlyOnce(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		return modeltest.Reply{Status: 400, Body: `{"error":{"message":"Unknown parameter: 'stream_options'.","param":"stream_options"}}`}
	})
	_, err := client(t, s, "chat").Stream(context.Background(), req(), nil)
	if err == nil || len(s.Requests()) != 2 {
		t.Fatalf("%v after %d requests", err, len(s.Requests()))
	}
}

func TestOmitParamsFromConfig(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Text: "ok"})
	c := client(t, s, "chat", func(c *model.ProviderConfig) { c.OmitParams = []string{"stream_options", "parallel_tool_calls"} })
	if _, err := c.Stream(context.Background(), req(), nil); err != nil {
		t.Fatal(err)
	}
	body := s.Requests()[0].Body
	if _, ok := body["stream_options"]; ok {
		t.Fatalf("stream_options sent: %v", body)
	}
	if _, ok := body["parallel_tool_calls"]; ok {
		t.Fatalf("parallel_tool_calls sent: %v", body)
	}
	if _, err := model.New(model.ProviderConfig{BaseURL: s.URL(), OmitParams: []string{"messages"}}); err == nil || !strings.Contains(err.Error(), "omit_params") {
		t.Fatalf("unknown omit_params entry accepted: %v", err)
	}
}

// A server that accepts the connection and never answers is cut after the
// header timeout and retried; with no retries it fails.
func TestResponseHeaderTimeout(t *testing.T) {
	for _, wire := range wires {
		s := modeltest.NewServer(t)
		s.Enqueue(modeltest.Reply{Hang: true}, modeltest.Reply{Text: "late"})
		var col collector
		c := client(t, s, wire, func(c *model.ProviderConfig) { c.ResponseHeaderTimeout = 50 * time.Millisecond })
		resp, err := c.Stream(context.Background(), req(), col.on)
		if err != nil || resp.Text != "late" || len(col.retries) != 1 || !strings.Contains(col.retries[0], "no response within 50ms") {
			t.Fatalf("%s: %v %q, retries %q", wire, err, resp.Text, col.retries)
		}
		s.Enqueue(modeltest.Reply{Hang: true})
		c = client(t, s, wire, func(c *model.ProviderConfig) { c.ResponseHeaderTimeout = 50 * time.Millisecond; c.MaxRetries = new(0) })
		if _, err := c.Stream(context.Background(), req(), nil); err == nil || !strings.Contains(err.Error(), "no response within") {
			t.Fatalf("%s: %v", wire, err)
		}
	}
}

// Codex's query_params and a ?api-version= in base_url (Azure) reach every
// request without corrupting the path.
func TestQueryParamsAndAPIVersion(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Text: "ok"})
	c := client(t, s, "chat", func(c *model.ProviderConfig) {
		c.BaseURL = s.URL() + "?api-version=2024-10-21"
		c.QueryParams = map[string]string{"deployment": "gpt 4o"}
	})
	if _, err := c.Stream(context.Background(), req(), nil); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Query != "api-version=2024-10-21&deployment=gpt+4o" {
		t.Fatalf("path %q query %q", r.Path, r.Query)
	}
	if _, err := c.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Errors name the URL without its query (query_params may hold a key).
	s.Enqueue(modeltest.Reply{Status: 401})
	s.SetModelsStatus(500)
	_, err := c.Stream(context.Background(), req(), nil)
	fresh := client(t, s, "chat", func(c *model.ProviderConfig) {
		c.BaseURL = s.URL() + "?api-version=2024-10-21"
		c.QueryParams = map[string]string{"deployment": "gpt 4o"}
	})
	_, merr := fresh.Models(context.Background())
	for _, e := range []error{err, merr} {
		if e == nil || strings.Contains(e.Error(), "gpt") || strings.Contains(e.Error(), "api-version") {
			t.Fatalf("error shows the query: %v", e)
		}
	}
}

// A reply cut by the token limit arrives, with a warning saying so.
func TestIncompleteReplyWarns(t *testing.T) {
	for wire, rec := range map[string][]string{
		"chat":      {`{"choices":[{"index":0,"delta":{"content":"half"},"finish_reason":"length"}]}`},
		"responses": {`{"type":"response.output_text.delta","item_id":"m","delta":"half"}`, `{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`},
	} {
		s := modeltest.NewServer(t)
		s.Enqueue(modeltest.Reply{Recorded: rec})
		var col collector
		resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
		if err != nil || resp.Text != "half" || resp.Incomplete == "" || len(col.warnings) != 1 || !strings.Contains(col.warnings[0], "incomplete") {
			t.Fatalf("%s: %v %+v warnings %q", wire, err, resp, col.warnings)
		}
	}
}

// Arguments that are not a JSON object are never sent back: "" becomes
// {}, broken ones {} plus a note in the call's output, so strict
// providers (DashScope) accept the history and the session can go on.
func TestInvalidArgumentsAreNormalisedOnReplay(t *testing.T) {
	items := []protocol.Item{
		protocol.UserMessage("go"),
		protocol.FunctionCall("c1", "list_dir", ""),
		protocol.FunctionCall("c2", "read_file", `{"path": "a.go`), // cut by length
		protocol.FunctionCall("c3", "read_file", `["a"]`),
		protocol.FunctionCall("c4", "read_file", `{"path":"b"}`),
		protocol.FunctionCallOutput("c1", "a.go"),
		protocol.FunctionCallOutput("c2", "error: invalid arguments"),
		protocol.FunctionCallOutput("c3", "error: invalid arguments"),
		protocol.FunctionCallOutput("c4", "package b"),
	}
	for _, wire := range wires {
		s := modeltest.NewServer(t)
		s.SetRules(modeltest.JSONArgumentsRule)
		s.Enqueue(modeltest.Reply{Text: "ok"})
		if _, err := client(t, s, wire).Stream(context.Background(), model.Request{Model: "m", Items: items}, nil); err != nil {
			t.Fatalf("%s: %v", wire, err)
		}
		args, outputs := map[string]string{}, map[string]string{}
		body := s.Requests()[0].Body
		if wire == "chat" {
			for _, m := range body["messages"].([]any) {
				mm := m.(map[string]any)
				for _, c := range asSlice(mm["tool_calls"]) {
					cm := c.(map[string]any)
					args[cm["id"].(string)] = cm["function"].(map[string]any)["arguments"].(string)
				}
				if mm["role"] == "tool" {
					outputs[mm["tool_call_id"].(string)] = mm["content"].(string)
				}
			}
		} else {
			for _, it := range body["input"].([]any) {
				m := it.(map[string]any)
				switch m["type"] {
				case "function_call":
					args[m["call_id"].(string)] = m["arguments"].(string)
				case "function_call_output":
					outputs[m["call_id"].(string)] = m["output"].(string)
				}
			}
		}
		want := map[string]string{"c1": "{}", "c2": "{}", "c3": "{}", "c4": `{"path":"b"}`}
		if toJSON(args) != toJSON(want) {
			t.Fatalf("%s: arguments %v", wire, args)
		}
		for id, noted := range map[string]bool{"c1": false, "c2": true, "c3": true, "c4": false} {
			if strings.Contains(outputs[id], "not a valid JSON object") != noted {
				t.Fatalf("%s: output of %s: %q", wire, id, outputs[id])
			}
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// The same reasoning arriving again after a retry is neither repeated in
// the stream nor in the result.
func TestReasoningNotRepeatedAcrossRetries(t *testing.T) {
	for _, wire := range wires {
		s := modeltest.NewServer(t)
		s.Enqueue(modeltest.Reply{Reasoning: "step one, step two", Text: "answer", DropAfterChunks: 6}, modeltest.Reply{Reasoning: "step one, step two", Text: "answer"})
		var col collector
		resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
		if err != nil || resp.Reasoning != "step one, step two" || col.reason.String() != resp.Reasoning || col.resets != 0 {
			t.Fatalf("%s: %v reasoning %q streamed %q resets %d", wire, err, resp.Reasoning, col.reason.String(), col.resets)
		}
	}
}

// DeepSeek's rule: without reasoning_content on the tool-call message the
// follow-up is refused; grove sends it.
func TestDeepSeekReasoningRoundTrip(t *testing.T) {
	s := modeltest.NewServer(t)
	s.SetRules(modeltest.DeepSeekReasoningRule)
	s.Enqueue(modeltest.Reply{Reasoning: "use the tool", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"location":"SF"}`}}}, modeltest.Reply{Text: "sunny"})
	c := client(t, s, "chat")
	first, err := c.Stream(context.Background(), model.Request{Model: "deepseek-reasoner", Items: []protocol.Item{protocol.UserMessage("weather?")}, Tools: tools()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	next, err := c.Stream(context.Background(), model.Request{Model: "deepseek-reasoner", Items: historyAfter("weather?", first, "sunny"), Tools: tools()}, nil)
	if err != nil || next.Text != "sunny" {
		t.Fatalf("%v %q", err, next.Text)
	}
	var body struct {
		Messages []struct {
			Role             string `json:"role"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(s.Requests()[1].Raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.Messages[1].Role != "assistant" || body.Messages[1].ReasoningContent != "use the tool" {
		t.Fatalf("%+v", body.Messages)
	}
}

// Encrypted reasoning another model cannot verify (a session resumed with
// a different model) is left out of that request instead of failing it.
func TestUnverifiableReasoningIsLeftOut(t *testing.T) {
	s := modeltest.NewServer(t)
	s.SetRules(func(cr modeltest.CapturedRequest) *modeltest.Reply {
		if strings.Contains(string(cr.Raw), "gAAAold") {
			return &modeltest.Reply{Status: 400, Body: `{"error":{"message":"The encrypted content gAAAold could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`}
		}
		return nil
	})
	s.Enqueue(modeltest.Reply{Text: "ok"})
	items := []protocol.Item{protocol.UserMessage("hi"), {Type: protocol.ItemReasoning, Summary: "s", EncryptedContent: "gAAAold"}, protocol.AssistantMessage("hello"), protocol.UserMessage("again")}
	var col collector
	resp, err := client(t, s, "responses").Stream(context.Background(), model.Request{Model: "other-model", Items: items}, col.on)
	if err != nil || resp.Text != "ok" || len(col.warnings) != 1 || len(s.Requests()) != 2 {
		t.Fatalf("%v %q warnings %q, %d requests", err, resp.Text, col.warnings, len(s.Requests()))
	}
	if inc, _ := s.Requests()[1].Body["include"].([]any); len(inc) != 1 {
		t.Fatalf("include dropped for good: %v", s.Requests()[1].Body["include"])
	}
}
