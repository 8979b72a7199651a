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
			out = append(out, map[string]any{"role": role, "content": chatContent(it["content"])})
		case "function_call", "custom_tool_call":
			args, _ := it["arguments"].(string)
			if args == "" {
				args, _ = it["input"].(string)
			}
			call := map[string]any{"id": it["call_id"], "type": "function", "function": map[string]any{"name": it["name"], "arguments": args}}
			// Chat carries one reply's calls (and its text) in one
			// assistant message; Responses has an item each.
			if n := len(out); n > 0 {
				if prev, _ := out[n-1].(map[string]any); prev["role"] == "assistant" {
					calls, _ := prev["tool_calls"].([]any)
					prev["tool_calls"] = append(calls, call)
					continue
				}
			}
			out = append(out, map[string]any{"role": "assistant", "content": "", "tool_calls": []any{call}})
		case "function_call_output", "custom_tool_call_output":
			out = append(out, map[string]any{"role": "tool", "tool_call_id": it["call_id"], "content": inputText(it["output"])})
		}
	}
	return out
}

// chatContent is a message's content in chat's shape: its text, or the
// parts (text and image_url) when it carries an image.
func chatContent(v any) any {
	parts, ok := v.([]any)
	if !ok {
		return inputText(v)
	}
	var out []any
	image := false
	for _, p := range parts {
		part, _ := p.(map[string]any)
		switch part["type"] {
		case "input_image":
			image = true
			out = append(out, map[string]any{"type": "image_url", "image_url": map[string]any{"url": part["image_url"]}})
		default:
			out = append(out, map[string]any{"type": "text", "text": part["text"]})
		}
	}
	if !image {
		return inputText(v)
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

// ToolNames are the names of the tools a request offered, on either wire
// (chat: tools[].function.name; responses: tools[].name).
func (r CapturedRequest) ToolNames() []string {
	var names []string
	tools, _ := r.Body["tools"].([]any)
	for _, tl := range tools {
		tm, _ := tl.(map[string]any)
		if fn, ok := tm["function"].(map[string]any); ok {
			tm = fn
		}
		if n, _ := tm["name"].(string); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// OutputFormat is the structured-output format a request asked for, as
// {type, name, strict, schema} on either wire (chat: response_format's
// json_schema; responses: text.format), nil when none.
func (r CapturedRequest) OutputFormat() map[string]any {
	if text, ok := r.Body["text"].(map[string]any); ok {
		if f, ok := text["format"].(map[string]any); ok {
			return f
		}
	}
	rf, ok := r.Body["response_format"].(map[string]any)
	if !ok {
		return nil
	}
	out := map[string]any{"type": rf["type"]}
	if js, ok := rf["json_schema"].(map[string]any); ok {
		for k, v := range js {
			out[k] = v
		}
	}
	return out
}
