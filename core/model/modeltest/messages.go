package modeltest

import "strings"

// Messages is the conversation a request carried, in Chat Completions'
// shape whichever wire it came over: a Responses request's instructions
// become the system message, its message items messages with their text
// joined, function_call items an assistant message with tool_calls and
// function_call_output items tool messages. Tests that read what the model
// was sent use it so they hold for both wires.
func (r CapturedRequest) Messages() []any {
	if !r.IsResponses() {
		msgs, _ := r.Body["messages"].([]any)
		return msgs
	}
	var out []any
	if s, _ := r.Body["instructions"].(string); s != "" {
		out = append(out, map[string]any{"role": "system", "content": s})
	}
	input, _ := r.Body["input"].([]any)
	for _, raw := range input {
		it, _ := raw.(map[string]any)
		switch it["type"] {
		case "message", nil:
			role, _ := it["role"].(string)
			if role == "developer" {
				role = "system"
			}
			out = append(out, map[string]any{"role": role, "content": inputText(it["content"])})
		case "function_call", "custom_tool_call":
			args, _ := it["arguments"].(string)
			if args == "" {
				args, _ = it["input"].(string)
			}
			out = append(out, map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{
				"id": it["call_id"], "type": "function", "function": map[string]any{"name": it["name"], "arguments": args},
			}}})
		case "function_call_output", "custom_tool_call_output":
			out = append(out, map[string]any{"role": "tool", "tool_call_id": it["call_id"], "content": inputText(it["output"])})
		}
	}
	return out
}

// inputText is the text of a Responses content value: a string, or the
// text parts of a content array joined.
func inputText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			part, _ := p.(map[string]any)
			if s, ok := part["text"].(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}
