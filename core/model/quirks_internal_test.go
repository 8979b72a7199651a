package model

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Provider quirks of issue 11, each as the provider streams it.
func TestChatProviderQuirks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
		want   Response
		err    string
	}{
		{"vLLM sends reasoning and reasoning_content with the same text", []string{
			`{"choices":[{"index":0,"delta":{"reasoning":"think","reasoning_content":"think"}}]}`,
			`{"choices":[{"index":0,"delta":{"reasoning":" more","reasoning_content":" more"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`,
		}, Response{Text: "ok", Reasoning: "think more"}, ""},
		{"Fireworks/NIM/MiniMax repeat the name in every delta", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":"th\":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		}, Response{ToolCalls: []ToolCallRequest{{CallID: "c1", Name: "read_file", Arguments: `{"path":1}`}}}, ""},
		{"Gemini parallel calls without index, keyed by id", []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"g1","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"g2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"g3","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}},{"id":"g4","type":"function","function":{"name":"list_dir","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
		}, Response{ToolCalls: []ToolCallRequest{
			{CallID: "g1", Name: "list_dir", Arguments: `{"path":"."}`}, {CallID: "g2", Name: "read_file", Arguments: `{"path":"a"}`},
			{CallID: "g3", Name: "read_file", Arguments: `{"path":"b"}`}, {CallID: "g4", Name: "list_dir", Arguments: `{}`},
		}}, ""},
		{"Magistral content as typed parts", []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"2+2"}]}]}}]}`,
			`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"4"},{"type":"image_url","image_url":"x"}]}}]}`,
			`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}`,
		}, Response{Text: "4", Reasoning: "2+2"}, ""},
		{"refusal is the answer", []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":"I can't help"}}]}`,
			`{"choices":[{"index":0,"delta":{"refusal":" with that."},"finish_reason":"stop"}]}`,
		}, Response{Text: "I can't help with that."}, ""},
		{"a second choice does not interleave", []string{
			`{"choices":[{"index":1,"delta":{"content":"B","reasoning_content":"rb"}},{"index":0,"delta":{"content":"A"}}]}`,
			`{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"n","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
		}, Response{Text: "Aa"}, ""},
		{"length is surfaced", []string{
			`{"choices":[{"index":0,"delta":{"content":"half"},"finish_reason":"length"}]}`,
		}, Response{Text: "half", Incomplete: "the reply reached the output token limit (finish_reason length)"}, ""},
		{"content filter is surfaced", []string{
			`{"choices":[{"index":0,"delta":{"content":"par"},"finish_reason":"content_filter"}]}`,
		}, Response{Text: "par", Incomplete: "the provider's content filter stopped the reply (finish_reason content_filter)"}, ""},
		{"Groq's usage inside x_groq", []string{
			`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"x_groq":{"id":"req_1","usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}}`,
		}, Response{Text: "hi", Usage: usage(7, 0, 2, 0, 9)}, ""},
		{"OpenRouter error inside a choice", []string{
			`{"choices":[{"index":0,"delta":{"content":"par"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error","error":{"code":502,"message":"Upstream idle"}}]}`,
		}, Response{}, "Upstream idle"},
		{"finish_reason error without details", []string{
			`{"choices":[{"index":0,"delta":{"content":"par"},"finish_reason":"error"}]}`,
		}, Response{}, `finish_reason "error"`},
		{"numeric in-band error code", []string{`{"error":{"code":502,"message":"Provider returned error"}}`}, Response{}, "Provider returned error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := feed(newChatAssembler(&delivery{}), tc.events...)
			check(t, got, err, tc.want, tc.err)
		})
	}
}

func TestResponsesProviderQuirks(t *testing.T) {
	done := `response.completed|{"type":"response.completed","response":{"id":"r"}}`
	for _, tc := range []struct {
		name   string
		events []string
		want   Response
	}{
		{"two output messages are separate paragraphs", []string{
			`response.output_text.delta|{"type":"response.output_text.delta","item_id":"m1","delta":"First."}`,
			`response.output_text.delta|{"type":"response.output_text.delta","item_id":"m2","delta":"Second."}`,
			`response.output_item.done|{"type":"response.output_item.done","item":{"type":"message","id":"m3","content":[{"type":"output_text","text":"Third."}]}}`,
			done,
		}, Response{Text: "First.\n\nSecond.\n\nThird.", ResponseID: "r"}},
		{"custom_tool_call becomes a call with its raw input", []string{
			`response.output_item.added|{"type":"response.output_item.added","output_index":0,"item":{"type":"custom_tool_call","id":"ct","call_id":"c9","name":"apply_patch","input":""}}`,
			`response.custom_tool_call_input.delta|{"type":"response.custom_tool_call_input.delta","item_id":"ct","output_index":0,"delta":"*** Begin"}`,
			`response.output_item.done|{"type":"response.output_item.done","output_index":0,"item":{"type":"custom_tool_call","id":"ct","call_id":"c9","name":"apply_patch","input":"*** Begin Patch"}}`,
			done,
		}, Response{ToolCalls: []ToolCallRequest{{CallID: "c9", Name: "apply_patch", Arguments: "*** Begin Patch", Custom: true}}, ResponseID: "r"}},
		{"encrypted reasoning is kept for replay", []string{
			`response.output_item.done|{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAA1"}}`,
			`response.completed|{"type":"response.completed","response":{"id":"r","output":[{"type":"reasoning","id":"rs1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAA1"},{"type":"reasoning","id":"rs2","summary":[],"encrypted_content":"gAAA2"}]}}`,
		}, Response{Reasoning: "plan", ResponseID: "r", ReasoningItems: []protocol.Item{
			{Type: protocol.ItemReasoning, Summary: "plan", EncryptedContent: "gAAA1"},
			{Type: protocol.ItemReasoning, EncryptedContent: "gAAA2"},
		}}},
		{"reasoning without ids is kept once", []string{
			`response.output_item.done|{"type":"response.output_item.done","item":{"type":"reasoning","summary":[],"encrypted_content":"gX"}}`,
			`response.completed|{"type":"response.completed","response":{"id":"r","output":[{"type":"reasoning","summary":[],"encrypted_content":"gX"}]}}`,
		}, Response{ResponseID: "r", ReasoningItems: []protocol.Item{{Type: protocol.ItemReasoning, EncryptedContent: "gX"}}}},
		{"incomplete says why", []string{
			`response.output_text.delta|{"type":"response.output_text.delta","item_id":"m","delta":"cu"}`,
			`response.incomplete|{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`,
		}, Response{Text: "cu", ResponseID: "r", Incomplete: "the response is incomplete (max_output_tokens)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := feed(newResponsesAssembler(&delivery{}), tc.events...)
			check(t, got, err, tc.want, "")
		})
	}
}

// A parse error is deterministic: the same bytes would come again.
func TestUnreadableEventsAreNotRetryable(t *testing.T) {
	for _, a := range []assembler{newChatAssembler(&delivery{}), newResponsesAssembler(&delivery{})} {
		_, err := a.event("", []byte(`{"choices":[{"delta":{"content":{`))
		se, ok := err.(*streamError)
		if !ok || se.retryable {
			t.Fatalf("%T: %v retryable", a, err)
		}
	}
}

func TestRejectedParam(t *testing.T) {
	for msg, want := range map[string]string{
		"Unknown parameter: 'stream_options'.":                                           "stream_options",
		"Unrecognized request argument supplied: parallel_tool_calls":                    "parallel_tool_calls",
		"'parallel_tool_calls' is not supported with this model.":                        "parallel_tool_calls",
		"Unsupported parameter: 'reasoning_effort' is not supported with this model.":    "reasoning_effort",
		"Encrypted content is not supported with this model. Unknown parameter: include": "include",
		"max_tokens is too large":                                                        "",
		"Unknown parameter: 'messages[0].role'":                                          "",
	} {
		if got := rejectedParam(msg); got != want {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}

func TestNumericAndNamedInBandCodes(t *testing.T) {
	for raw, retry := range map[string]bool{
		`{"code":502,"message":"x"}`:                true,
		`{"code":429,"message":"x"}`:                true,
		`{"code":400,"message":"x"}`:                false,
		`{"code":"503","message":"x"}`:              true,
		`{"code":401,"message":"x"}`:                false,
		`{"code":"server_error","message":"x"}`:     true,
		`{"code":"invalid_prompt","message":"x"}`:   false,
		`{"type":"insufficient_quota","code":null}`: false,
	} {
		if got := streamErrorObject([]byte(raw)).(*streamError).retryable; got != retry {
			t.Errorf("%s: retryable %v", raw, got)
		}
	}
}

// The cap keeps text, reasoning and arguments bounded and says so.
func TestMessageCap(t *testing.T) {
	var got []Delta
	d := &delivery{onDelta: func(x Delta) { got = append(got, x) }, limit: 10}
	d.newAttempt()
	d.add(DeltaText, "héllo ")
	d.add(DeltaText, "wörld and more")
	d.add(DeltaReasoning, "short")
	c := d.newCall()
	d.addArguments(c, `{"a":"0123456789"}`)
	warnings := d.finish()
	text := d.text.cur.String()
	if !strings.HasPrefix(text, "héllo wö") || !strings.Contains(text, "[grove: message truncated") {
		t.Fatalf("text %q", text)
	}
	if d.reasoning.cur.String() != "short" {
		t.Fatalf("reasoning %q", d.reasoning.cur.String())
	}
	if c.args.Len() > 10 || len(warnings) != 2 || !strings.Contains(warnings[0], "message truncated at 10 bytes") || !strings.Contains(warnings[1], "arguments") {
		t.Fatalf("args %q warnings %q", c.args.String(), warnings)
	}
	var shown strings.Builder
	for _, x := range got {
		if x.Kind == DeltaText {
			shown.WriteString(x.Text)
		}
	}
	if shown.String() != text {
		t.Fatalf("delivered %q, assembled %q", shown.String(), text)
	}
}
