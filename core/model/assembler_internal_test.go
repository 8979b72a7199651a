package model

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// feed plays SSE data lines through an assembler the way attempt does and
// returns the response, or the error attempt would return.
func feed(a assembler, events ...string) (Response, error) {
	for _, ev := range events {
		typ, data, ok := strings.Cut(ev, "|")
		if !ok {
			typ, data = "", ev
		}
		done, err := a.event(typ, []byte(data+"\n"))
		if err != nil {
			return Response{}, err
		}
		if done {
			return a.response(), nil
		}
	}
	if err := a.end(errors.New("ended early")); err != nil {
		return Response{}, err
	}
	return a.response(), nil
}

// Chat streams as compatible servers actually send them.
func TestChatAssemblerQuirks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
		want   Response
		err    string
	}{
		{"parallel calls all at index 0 with their own ids (Gemini)", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"list_dir","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`,
		}, Response{ToolCalls: []ToolCallRequest{{CallID: "a", Name: "list_dir", Arguments: "{}"}, {CallID: "b", Name: "read_file", Arguments: `{"path":"x"}`}}}, ""},
		{"calls without index, arguments as an object, name repeated", []string{
			`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"exec_command","arguments":{"cmd":"ls"}}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"exec_command","arguments":""}}]}}]}`,
			`{"choices":[{"delta":{},"finish_reason":"stop"}]}`,
		}, Response{ToolCalls: []ToolCallRequest{{CallID: "a", Name: "exec_command", Arguments: `{"cmd":"ls"}`}}}, ""},
		{"reasoning under either name, null content, other choices ignored", []string{
			`{"id":"x1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"a"}}]}`,
			`{"choices":[{"index":0,"delta":{"reasoning":"b"}},{"index":1,"delta":{"content":"other"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"hi"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`,
		}, Response{Text: "hi", Reasoning: "ab", ResponseID: "x1", Usage: usage(3, 0, 2, 0, 5)}, ""},
		{"finish without [DONE] is complete", []string{
			`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`,
		}, Response{Text: "ok"}, ""},
		{"no finish_reason: incomplete", []string{`{"choices":[{"index":0,"delta":{"content":"ok"}}]}`}, Response{}, "ended early"},
		{"error chunk", []string{`{"choices":[{"index":0,"delta":{"content":"ok"}}]}`, `{"error":{"message":"quota","type":"insufficient_quota"}}`}, Response{}, "quota"},
		{"garbage", []string{`{"choices":`}, Response{}, "unreadable chunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := feed(newChatAssembler(&delivery{}), tc.events...)
			check(t, got, err, tc.want, tc.err)
		})
	}
}

// Responses streams with missing deltas, output only in the final event,
// several summary parts, and failures.
func TestResponsesAssemblerQuirks(t *testing.T) {
	completed := `response.completed|{"type":"response.completed","response":{"id":"r1","usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":1},"output_tokens":4,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":9}}}`
	for _, tc := range []struct {
		name   string
		events []string
		want   Response
		err    string
	}{
		{"items only in output_item.done", []string{
			`response.output_item.done|{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs","summary":[{"text":"one"},{"text":"two"}]}}`,
			`response.output_item.done|{"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"m","content":[{"type":"output_text","text":"hello"}]}}`,
			`response.output_item.done|{"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","id":"fc","call_id":"c1","name":"wait","arguments":"{}"}}`,
			completed,
		}, Response{Text: "hello", Reasoning: "one\n\ntwo", ToolCalls: []ToolCallRequest{{CallID: "c1", Name: "wait", Arguments: "{}"}}, ResponseID: "r1", Usage: usage(5, 1, 4, 2, 9)}, ""},
		{"everything only in response.completed", []string{
			`response.completed|{"type":"response.completed","response":{"id":"r2","output":[{"type":"message","id":"m","content":[{"type":"output_text","text":"a"},{"type":"output_text","text":"b"}]},{"type":"function_call","id":"f","call_id":"c","name":"n","arguments":"{\"x\":1}"}]}}`,
		}, Response{Text: "ab", ToolCalls: []ToolCallRequest{{CallID: "c", Name: "n", Arguments: `{"x":1}`}}, ResponseID: "r2"}, ""},
		{"streamed deltas are not doubled by done events", []string{
			`response.reasoning_summary_part.added|{"type":"response.reasoning_summary_part.added","item_id":"rs","summary_index":0}`,
			`response.reasoning_summary_text.delta|{"type":"response.reasoning_summary_text.delta","item_id":"rs","delta":"p1"}`,
			`response.reasoning_summary_part.added|{"type":"response.reasoning_summary_part.added","item_id":"rs","summary_index":1}`,
			`response.reasoning_summary_text.delta|{"type":"response.reasoning_summary_text.delta","item_id":"rs","delta":"p2"}`,
			`response.output_item.done|{"type":"response.output_item.done","item":{"type":"reasoning","id":"rs","summary":[{"text":"p1"},{"text":"p2"}]}}`,
			`response.output_text.delta|{"type":"response.output_text.delta","item_id":"m","delta":"hi"}`,
			`response.output_item.done|{"type":"response.output_item.done","item":{"type":"message","id":"m","content":[{"type":"output_text","text":"hi"}]}}`,
			`response.output_item.added|{"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":"fc","call_id":"c","name":"n","arguments":""}}`,
			`response.function_call_arguments.delta|{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":2,"delta":"{\"a\""}`,
			`response.function_call_arguments.delta|{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":2,"delta":":1}"}`,
			`response.output_item.done|{"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","id":"fc","call_id":"c","name":"n","arguments":"{\"a\":1}"}}`,
			`response.completed|{"type":"response.completed","response":{"id":"r3","output":[{"type":"reasoning","id":"rs","summary":[{"text":"p1"},{"text":"p2"}]},{"type":"message","id":"m","content":[{"type":"output_text","text":"hi"}]},{"type":"function_call","id":"fc","call_id":"c","name":"n","arguments":"{\"a\":1}"}]}}`,
		}, Response{Text: "hi", Reasoning: "p1\n\np2", ToolCalls: []ToolCallRequest{{CallID: "c", Name: "n", Arguments: `{"a":1}`}}, ResponseID: "r3"}, ""},
		{"incomplete is terminal", []string{
			`response.output_text.delta|{"type":"response.output_text.delta","item_id":"m","delta":"cut"}`,
			`response.incomplete|{"type":"response.incomplete","response":{"id":"r4","status":"incomplete"}}`,
		}, Response{Text: "cut", ResponseID: "r4", Incomplete: "the response is incomplete"}, ""},
		{"no completed: incomplete", []string{`response.output_text.delta|{"type":"response.output_text.delta","item_id":"m","delta":"x"}`}, Response{}, "ended early"},
		{"response.failed", []string{`response.failed|{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"try again"}}}`}, Response{}, "try again"},
		{"error event", []string{`error|{"type":"error","code":"invalid_prompt","message":"nope","param":null}`}, Response{}, "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := feed(newResponsesAssembler(&delivery{}), tc.events...)
			check(t, got, err, tc.want, tc.err)
		})
	}
}

func usage(in, cached, out, reasoning, total int64) protocol.TokenUsage {
	return protocol.TokenUsage{InputTokens: in, CachedInputTokens: cached, OutputTokens: out, ReasoningTokens: reasoning, TotalTokens: total}
}

func check(t *testing.T, got Response, err error, want Response, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}
