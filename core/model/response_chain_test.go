package model_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// chainSession plays a thread the way the engine does: a request with the
// whole history, then the reply's items (reasoning, message, calls) and
// the tool outputs appended, then the next request.
type chainSession struct {
	t        testing.TB
	client   model.Client
	prefix   *model.PrefixCache
	history  []protocol.Item
	warnings []string
	output   string // each tool's output ("output of <call id>" when empty)
}

func newChainSession(t testing.TB, s *modeltest.Server, store bool) *chainSession {
	c, err := model.New(model.ProviderConfig{Name: "p", BaseURL: s.URL(), WireAPI: "responses", StoreResponses: store, MaxRetries: new(int)})
	if err != nil {
		t.Fatal(err)
	}
	return &chainSession{t: t, client: c, prefix: model.NewPrefixCache(), history: []protocol.Item{protocol.UserMessage("start")}}
}

// turn sends the history and appends the reply and an output per call.
func (cs *chainSession) turn() model.Response {
	cs.t.Helper()
	req := model.Request{Model: "test-model", Instructions: "be brief", Items: cs.history[:len(cs.history):len(cs.history)], Prefix: cs.prefix, CacheKey: "thread-1"}
	resp, err := cs.client.Stream(context.Background(), req, func(d model.Delta) {
		if d.Kind == model.DeltaWarning {
			cs.warnings = append(cs.warnings, d.Text)
		}
	})
	if err != nil {
		cs.t.Fatal(err)
	}
	cs.history = append(cs.history, resp.ReasoningItems...)
	if resp.Text != "" {
		cs.history = append(cs.history, protocol.AssistantMessage(resp.Text))
	}
	for _, c := range resp.ToolCalls {
		cs.history = append(cs.history, protocol.FunctionCall(c.CallID, c.Name, c.Arguments))
	}
	for _, c := range resp.ToolCalls {
		out := cs.output
		if out == "" {
			out = "output of " + c.CallID
		}
		cs.history = append(cs.history, protocol.FunctionCallOutput(c.CallID, out))
	}
	return resp
}

func callReply(n int) modeltest.Reply {
	return modeltest.Reply{Text: fmt.Sprintf("step %d", n), ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: "exec_command", Arguments: `{"cmd":"true"}`}}}
}

// inputTypes lists a request's input items as type[:call_id|role].
func inputTypes(cr modeltest.CapturedRequest) string {
	in, _ := cr.Body["input"].([]any)
	var out []string
	for _, x := range in {
		m, _ := x.(map[string]any)
		s := fmt.Sprint(m["type"])
		if id, ok := m["call_id"]; ok {
			s += ":" + fmt.Sprint(id)
		} else if r, ok := m["role"]; ok {
			s += ":" + fmt.Sprint(r)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func checkRequest(t *testing.T, cr modeltest.CapturedRequest, store bool, prev, input string) {
	t.Helper()
	if cr.Body["store"] != store || fmt.Sprint(cr.Body["previous_response_id"]) != prev || inputTypes(cr) != input {
		t.Fatalf("request store=%v previous_response_id=%v input=%s; want store=%v previous_response_id=%s input=%s",
			cr.Body["store"], cr.Body["previous_response_id"], inputTypes(cr), store, prev, input)
	}
	if cr.Body["instructions"] != "be brief" || cr.Body["prompt_cache_key"] != "thread-1" {
		t.Fatalf("a chained request still carries instructions and cache key: %v", cr.Body)
	}
}

// With store_responses, a thread's requests after the first send only the
// items added since the last response, naming it.
func TestStoreResponsesSendsOnlyWhatIsNew(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(callReply(1), callReply(2), modeltest.Reply{Text: "done"}, modeltest.Reply{Text: "again"})
	cs := newChainSession(t, s, true)
	cs.turn()
	cs.turn()
	cs.turn()
	cs.history = append(cs.history, protocol.UserMessage("next"))
	cs.turn()
	reqs := s.Requests()
	checkRequest(t, reqs[0], true, "<nil>", "message:user")
	checkRequest(t, reqs[1], true, "resp_modeltest_1", "function_call_output:call_1")
	checkRequest(t, reqs[2], true, "resp_modeltest_2", "function_call_output:call_2")
	checkRequest(t, reqs[3], true, "resp_modeltest_3", "message:user")
	if len(cs.warnings) != 0 {
		t.Fatalf("warnings: %q", cs.warnings)
	}
}

// Without it (the default) every request carries the whole history and
// asks the provider to keep nothing.
func TestResponsesAreNotStoredByDefault(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(callReply(1), modeltest.Reply{Text: "done"})
	cs := newChainSession(t, s, false)
	cs.turn()
	cs.turn()
	reqs := s.Requests()
	checkRequest(t, reqs[0], false, "<nil>", "message:user")
	checkRequest(t, reqs[1], false, "<nil>", "message:user,message:assistant,function_call:call_1,function_call_output:call_1")
}

// A response the provider no longer holds costs one refused request: the
// same request goes again with the whole history, and the chain restarts
// from its response.
func TestStoreResponsesFallsBackOnceWhenTheResponseIsGone(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(callReply(1), callReply(2), modeltest.Reply{Text: "done"})
	cs := newChainSession(t, s, true)
	cs.turn()
	s.ForgetResponses()
	cs.turn()
	cs.turn()
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (one refused)", len(reqs))
	}
	checkRequest(t, reqs[1], true, "resp_modeltest_1", "function_call_output:call_1")
	checkRequest(t, reqs[2], true, "<nil>", "message:user,message:assistant,function_call:call_1,function_call_output:call_1")
	checkRequest(t, reqs[3], true, "resp_modeltest_2", "function_call_output:call_2")
	if len(cs.warnings) != 1 || !strings.Contains(cs.warnings[0], "resp_modeltest_1") {
		t.Fatalf("want one warning naming the lost response, got %q", cs.warnings)
	}
}

// A provider that does not take previous_response_id at all gets the
// whole history from then on.
func TestStoreResponsesStopsChainingWhenTheParameterIsRefused(t *testing.T) {
	s := modeltest.NewServer(t)
	s.SetRules(modeltest.RejectParam("previous_response_id"))
	s.Enqueue(callReply(1), callReply(2), modeltest.Reply{Text: "done"})
	cs := newChainSession(t, s, true)
	cs.turn()
	cs.turn()
	cs.turn()
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (one refused)", len(reqs))
	}
	checkRequest(t, reqs[3], true, "<nil>", "message:user,message:assistant,function_call:call_1,function_call_output:call_1,message:assistant,function_call:call_2,function_call_output:call_2")
}

// A replaced history (a compaction) or a new thread (resume) comes with a
// new PrefixCache: its first request carries the whole history again.
func TestStoreResponsesRestartsWithANewHistory(t *testing.T) {
	s := modeltest.NewServer(t)
	s.Enqueue(callReply(1), modeltest.Reply{Text: "done"})
	cs := newChainSession(t, s, true)
	cs.turn()
	cs.prefix = model.NewPrefixCache()
	cs.history = []protocol.Item{protocol.UserMessage("summary of what came before"), protocol.UserMessage("go on")}
	cs.turn()
	checkRequest(t, s.Requests()[1], true, "<nil>", "message:user,message:user")
}

// store_responses is for the Responses API: Chat Completions keeps nothing.
func TestStoreResponsesNeedsTheResponsesAPI(t *testing.T) {
	_, err := model.New(model.ProviderConfig{Name: "p", BaseURL: "http://127.0.0.1:1/v1", WireAPI: "chat", StoreResponses: true})
	if err == nil || !strings.Contains(err.Error(), "store_responses") {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkResponsesChainBytes: the bytes of a thread's request at turn 10
// and turn 1,000 (each turn one call with a 2 KB output), with the whole
// history resent (store_responses off) and chained (on).
//
//	go test ./core/model -run '^$' -bench ResponsesChainBytes -benchtime 1x
func BenchmarkResponsesChainBytes(b *testing.B) {
	for _, store := range []bool{false, true} {
		b.Run(fmt.Sprintf("store=%v", store), func(b *testing.B) {
			for range b.N {
				s := modeltest.Start()
				s.KeepRequests(false)
				var n atomic.Int64
				sizes := make(chan int, 1)
				s.Handle(func(cr modeltest.CapturedRequest) modeltest.Reply {
					sizes <- len(cr.Raw)
					return callReply(int(n.Add(1)))
				})
				cs := newChainSession(b, s, store)
				cs.output = strings.Repeat("x", 2048)
				var total int
				for turn := 1; turn <= 1000; turn++ {
					cs.turn()
					size := <-sizes
					total += size
					switch turn {
					case 10:
						b.ReportMetric(float64(size), "bytes@turn10")
					case 1000:
						b.ReportMetric(float64(size), "bytes@turn1000")
					}
				}
				b.ReportMetric(float64(total)/(1<<20), "MiB-sent/1000turns")
				s.Close()
			}
		})
	}
}
