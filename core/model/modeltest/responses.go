package modeltest

import "fmt"

// responsesEvents is a Responses stream as OpenAI sends it: created and
// in_progress, then per output item its added event, part/delta/done
// events, and its done event, and finally response.completed carrying the
// whole output and the usage. Every event has a sequence_number.
func responsesEvents(r Reply, req map[string]any, id string) []string {
	model := requestModel(req)
	var out []string
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		out = append(out, sse(typ, fields))
	}
	response := func(status string, output []any, usage any) map[string]any {
		return map[string]any{
			"id": id, "object": "response", "created_at": 1700000000, "status": status,
			"model": model, "output": output, "error": nil, "incomplete_details": nil,
			"parallel_tool_calls": req["parallel_tool_calls"], "store": req["store"], "usage": usage,
			"previous_response_id": req["previous_response_id"],
		}
	}
	emit("response.created", map[string]any{"response": response("in_progress", []any{}, nil)})
	emit("response.in_progress", map[string]any{"response": response("in_progress", []any{}, nil)})
	var output []any
	idx := 0
	if r.Reasoning != "" {
		id := "rs_modeltest"
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
		part := map[string]any{"type": "summary_text", "text": ""}
		emit("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "part": part})
		for _, p := range pieces(r.Reasoning, r.ChunkSize) {
			emit("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "delta": p})
		}
		emit("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "text": r.Reasoning})
		done := map[string]any{"type": "summary_text", "text": r.Reasoning}
		emit("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "part": done})
		item := map[string]any{"id": id, "type": "reasoning", "summary": []any{done}}
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	if r.Text != "" || r.StreamError != "" {
		id := "msg_modeltest"
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		emit("response.content_part.added", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, p := range pieces(r.Text, r.ChunkSize) {
			emit("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": p, "logprobs": []any{}})
		}
		if r.StreamError != "" {
			emit("error", map[string]any{"code": r.errorType(), "message": r.StreamError, "param": nil})
			return out
		}
		part := map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}
		emit("response.output_text.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "text": r.Text, "logprobs": []any{}})
		emit("response.content_part.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "part": part})
		item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	for i, tc := range r.ToolCalls {
		id := fmt.Sprintf("fc_modeltest_%d", i)
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": id, "type": "function_call", "status": "in_progress", "call_id": tc.ID, "name": tc.Name, "arguments": ""}})
		for _, p := range pieces(tc.Arguments, r.ChunkSize) {
			emit("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": p})
		}
		emit("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": tc.Arguments})
		item := map[string]any{"id": id, "type": "function_call", "status": "completed", "call_id": tc.ID, "name": tc.Name, "arguments": tc.Arguments}
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	u := r.Usage
	emit("response.completed", map[string]any{"response": response("completed", output, map[string]any{
		"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "total_tokens": u.TotalTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedInputTokens},
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	})})
	return out
}
