package model

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// chatBody builds a Chat Completions request.
func chatBody(req Request) map[string]any {
	var msgs []map[string]any
	if req.Instructions != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": req.Instructions})
	}
	var pendingCalls []map[string]any
	var pendingText any
	flushCalls := func() {
		if len(pendingCalls) > 0 {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": pendingText, "tool_calls": pendingCalls})
			pendingCalls, pendingText = nil, nil
		}
	}
	for i, it := range req.Items {
		switch it.Type {
		case protocol.ItemMessage:
			if it.Role == protocol.RoleAssistant {
				flushCalls()
				// An assistant text followed by tool calls is one message.
				if i+1 < len(req.Items) && req.Items[i+1].Type == protocol.ItemFunctionCall {
					pendingText = it.Content
					continue
				}
				msgs = append(msgs, map[string]any{"role": "assistant", "content": it.Content})
				continue
			}
			flushCalls()
			role := it.Role
			if role == protocol.RoleDeveloper {
				role = "system"
			}
			if len(it.Images) == 0 {
				msgs = append(msgs, map[string]any{"role": role, "content": it.Content})
				continue
			}
			parts := []map[string]any{}
			if it.Content != "" {
				parts = append(parts, map[string]any{"type": "text", "text": it.Content})
			}
			for _, u := range it.Images {
				parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": u}})
			}
			msgs = append(msgs, map[string]any{"role": role, "content": parts})
		case protocol.ItemFunctionCall:
			pendingCalls = append(pendingCalls, map[string]any{"id": it.CallID, "type": "function", "function": map[string]any{"name": it.Name, "arguments": it.Arguments}})
		case protocol.ItemFunctionCallOutput:
			flushCalls()
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": it.CallID, "content": it.Output})
		}
	}
	flushCalls()
	body := map[string]any{
		"model": req.Model, "messages": msgs, "stream": true,
		"stream_options": map[string]any{"include_usage": true},
	}
	if len(req.Tools) > 0 {
		tools := make([]map[string]any, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}}
		}
		body["tools"] = tools
		body["parallel_tool_calls"] = req.ParallelToolCalls
	}
	if req.ReasoningEffort != "" {
		body["reasoning_effort"] = req.ReasoningEffort
	}
	return body
}

type chatChunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		TotalTokens         int64 `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func (c *openAIClient) streamChat(ctx context.Context, body map[string]any, dd *dedup, onDelta func(Delta)) (Response, error) {
	var resp Response
	type call struct{ id, name, args string }
	calls := map[int]*call{}
	finished := false
	err := c.attempt(ctx, body, func(_ string, data []byte) (bool, error) {
		if d := strings.TrimSpace(string(data)); d == "[DONE]" {
			return true, nil
		}
		var ch chatChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return false, &streamError{msg: fmt.Sprintf("unreadable chunk: %v", err), retryable: true}
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return false, streamErrorObject(ch.Error)
		}
		if ch.ID != "" {
			resp.ResponseID = ch.ID
		}
		for _, choice := range ch.Choices {
			d := choice.Delta
			if d.Content != "" {
				resp.Text += d.Content
				dd.text(d.Content)
			}
			if r := d.ReasoningContent + d.Reasoning; r != "" {
				resp.Reasoning += r
				if onDelta != nil {
					onDelta(Delta{Kind: DeltaReasoning, Text: r})
				}
			}
			for _, tc := range d.ToolCalls {
				cl := calls[tc.Index]
				if cl == nil {
					cl = &call{}
					calls[tc.Index] = cl
				}
				if tc.ID != "" {
					cl.id = tc.ID
				}
				cl.name += tc.Function.Name
				cl.args += tc.Function.Arguments
			}
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				finished = true
			}
		}
		if u := ch.Usage; u != nil {
			resp.Usage = protocol.TokenUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
			if u.PromptTokensDetails != nil {
				resp.Usage.CachedInputTokens = u.PromptTokensDetails.CachedTokens
			}
			if u.CompletionTokensDetails != nil {
				resp.Usage.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
			}
		}
		return false, nil
	})
	if err != nil {
		return Response{}, err
	}
	if !finished {
		return Response{}, &streamError{msg: "stream ended without a finish_reason", retryable: true}
	}
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		cl := calls[i]
		resp.ToolCalls = append(resp.ToolCalls, ToolCallRequest{CallID: cl.id, Name: cl.name, Arguments: cl.args})
	}
	return resp, nil
}
