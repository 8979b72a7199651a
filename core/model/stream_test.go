package model_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

func TestTextReasoningAndUsage(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.NewServer(t)
			usage := protocol.TokenUsage{InputTokens: 10, CachedInputTokens: 4, OutputTokens: 7, ReasoningTokens: 2, TotalTokens: 17}
			s.Enqueue(modeltest.Reply{Reasoning: "The user greets; answer politely.", Text: "hello there, world", Usage: usage, ChunkSize: 3})
			var col collector
			resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "hello there, world" || col.text.String() != resp.Text {
				t.Fatalf("text %q, streamed %q", resp.Text, col.text.String())
			}
			if resp.Reasoning != "The user greets; answer politely." || col.reason.String() != resp.Reasoning {
				t.Fatalf("reasoning %q, streamed %q", resp.Reasoning, col.reason.String())
			}
			// Streamed in pieces, reasoning first, nothing else.
			if len(col.deltas) < 10 || !reflect.DeepEqual(col.kinds(), []model.DeltaKind{model.DeltaReasoning, model.DeltaText}) {
				t.Fatalf("%d deltas, kinds %v", len(col.deltas), col.kinds())
			}
			if resp.Usage != usage {
				t.Fatalf("usage %+v, want %+v", resp.Usage, usage)
			}
			if resp.ResponseID == "" || len(resp.ToolCalls) != 0 {
				t.Fatalf("response %+v", resp)
			}
			if got := s.Requests()[0].Header.Get("Authorization"); got != "Bearer "+secret {
				t.Fatalf("auth header %q", got)
			}
		})
	}
}

func TestToolCallsSplitAcrossChunks(t *testing.T) {
	long := `{"cmd":"go test ./... -run 'TestSomething|TestOther' -count=1","timeout_ms":120000,"workdir":"sub/dir"}`
	for _, wire := range wires {
		for _, tc := range []struct {
			name  string
			reply modeltest.Reply
			want  []model.ToolCallRequest
		}{
			{"one call, 1-byte chunks", modeltest.Reply{ChunkSize: 1, ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: long}}},
				[]model.ToolCallRequest{{CallID: "c1", Name: "exec_command", Arguments: long}}},
			{"two parallel calls after text", modeltest.Reply{Text: "Let me look.", ChunkSize: 5, ToolCalls: []modeltest.ToolCall{
				{ID: "c1", Name: "exec_command", Arguments: long}, {ID: "c2", Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
				[]model.ToolCallRequest{{CallID: "c1", Name: "exec_command", Arguments: long}, {CallID: "c2", Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
			{"three calls, empty arguments", modeltest.Reply{ChunkSize: 2, ToolCalls: []modeltest.ToolCall{
				{ID: "a", Name: "list_dir", Arguments: `{}`}, {ID: "b", Name: "update_plan", Arguments: ""}, {ID: "c", Name: "wait", Arguments: `{"ids":["x","y"]}`}}},
				[]model.ToolCallRequest{{CallID: "a", Name: "list_dir", Arguments: `{}`}, {CallID: "b", Name: "update_plan"}, {CallID: "c", Name: "wait", Arguments: `{"ids":["x","y"]}`}}},
		} {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				s := modeltest.NewServer(t)
				s.Enqueue(tc.reply)
				var col collector
				resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(resp.ToolCalls, tc.want) {
					t.Fatalf("calls\n got %+v\nwant %+v", resp.ToolCalls, tc.want)
				}
				if resp.Text != tc.reply.Text || col.text.String() != tc.reply.Text {
					t.Fatalf("text %q streamed %q", resp.Text, col.text.String())
				}
			})
		}
	}
}

// Many goroutines share one client (a tree of agents on one provider).
func TestConcurrentStreams(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.NewServer(t)
			s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
				return modeltest.Reply{Text: "answer to " + r.Body["model"].(string), ToolCalls: []modeltest.ToolCall{{ID: "c", Name: "wait", Arguments: `{"ids":["a"]}`}}}
			})
			c := client(t, s, wire)
			errs := make(chan error, 32)
			for i := range 32 {
				go func() {
					r := req()
					r.Model = "m" + string(rune('a'+i%26))
					resp, err := c.Stream(context.Background(), r, nil)
					if err == nil && (resp.Text != "answer to "+r.Model || len(resp.ToolCalls) != 1) {
						err = &model.APIError{Message: "wrong reply " + resp.Text}
					}
					errs <- err
				}()
			}
			for range 32 {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// A server that ignores "stream": true and answers with one JSON body is
// still understood; an error body with status 200 is an error.
func TestNonStreamedReply(t *testing.T) {
	bodies := map[string]string{
		"/chat/completions": `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"a","type":"function","function":{"name":"list_dir","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"wait","arguments":"{\"ids\":[]}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}`,
		"/responses":        `{"id":"r1","object":"response","status":"completed","output":[{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"hi"}]},{"type":"function_call","id":"f1","call_id":"a","name":"list_dir","arguments":"{}"},{"type":"function_call","id":"f2","call_id":"b","name":"wait","arguments":"{\"ids\":[]}"}],"usage":{"input_tokens":4,"output_tokens":2,"total_tokens":6}}`,
	}
	var failing atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if failing.Load() {
			_, _ = w.Write([]byte(`{"error":{"message":"model overloaded upstream","type":"invalid_request_error"}}`))
			return
		}
		_, _ = w.Write([]byte(bodies[strings.TrimPrefix(r.URL.Path, "/v1")]))
	}))
	defer srv.Close()
	for _, wire := range wires {
		c, err := model.New(model.ProviderConfig{Name: "plain", BaseURL: srv.URL + "/v1", WireAPI: wire})
		if err != nil {
			t.Fatal(err)
		}
		var col collector
		resp, err := c.Stream(context.Background(), req(), col.on)
		if err != nil {
			t.Fatalf("%s: %v", wire, err)
		}
		want := []model.ToolCallRequest{{CallID: "a", Name: "list_dir", Arguments: "{}"}, {CallID: "b", Name: "wait", Arguments: `{"ids":[]}`}}
		if resp.Text != "hi" || col.text.String() != "hi" || !reflect.DeepEqual(resp.ToolCalls, want) || resp.Usage.TotalTokens != 6 {
			t.Fatalf("%s: %+v", wire, resp)
		}
	}
	failing.Store(true)
	for _, wire := range wires {
		c, _ := model.New(model.ProviderConfig{Name: "plain", BaseURL: srv.URL + "/v1", WireAPI: wire})
		if _, err := c.Stream(context.Background(), req(), nil); err == nil || !strings.Contains(err.Error(), "model overloaded upstream") {
			t.Fatalf("%s: %v", wire, err)
		}
	}
}

// Sequential calls reuse one connection: the client reads each stream to
// its end rather than closing it right after the terminal event (here the
// end of the chunked body comes a moment after the last event, as it may
// over a real network).
func TestConnectionsAreReused(t *testing.T) {
	events := map[string]string{
		"/v1/chat/completions": "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		"/v1/responses":        "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\"}}\n\n",
	}
	var mu sync.Mutex
	conns := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(events[r.URL.Path]))
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()
	for _, wire := range wires {
		mu.Lock()
		clear(conns)
		mu.Unlock()
		c, _ := model.New(model.ProviderConfig{Name: "p", BaseURL: srv.URL + "/v1", WireAPI: wire})
		for range 3 {
			if resp, err := c.Stream(context.Background(), req(), nil); err != nil || resp.Text+resp.ResponseID == "" {
				t.Fatal(resp, err)
			}
		}
		mu.Lock()
		n := len(conns)
		mu.Unlock()
		if n != 1 {
			t.Fatalf("%s: %d connections for 3 sequential calls", wire, n)
		}
	}
}
