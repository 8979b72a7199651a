package modeltest

// chatEvents is a Chat Completions stream as OpenAI sends it: a role
// chunk, reasoning and content deltas, tool calls whose first chunk carries
// id and name and whose arguments follow in pieces, a finish chunk, the
// usage chunk (only when stream_options.include_usage was asked for) and
// [DONE].
func chatEvents(r Reply, req map[string]any) []string {
	model := requestModel(req)
	chunk := func(delta map[string]any, finish any) string {
		return sse("", map[string]any{
			"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1700000000,
			"model": model, "system_fingerprint": "fp_modeltest",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
	}
	out := []string{chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)}
	for _, p := range pieces(r.Reasoning, r.ChunkSize) {
		out = append(out, chunk(map[string]any{"reasoning_content": p}, nil))
	}
	for _, p := range pieces(r.Text, r.ChunkSize) {
		out = append(out, chunk(map[string]any{"content": p}, nil))
	}
	if r.StreamError != "" {
		return append(out, sse("", map[string]any{"error": map[string]any{"message": r.StreamError, "type": r.errorType(), "param": nil, "code": nil}}))
	}
	for i, tc := range r.ToolCalls {
		out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}, nil))
		for _, p := range pieces(tc.Arguments, r.ChunkSize) {
			out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
	}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	out = append(out, chunk(map[string]any{}, finish))
	if opts, _ := req["stream_options"].(map[string]any); opts["include_usage"] == true {
		u := r.Usage
		out = append(out, sse("", map[string]any{
			"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{},
			"usage": map[string]any{
				"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.TotalTokens,
				"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedInputTokens},
				"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
			},
		}))
	}
	return append(out, "data: [DONE]\n\n")
}
