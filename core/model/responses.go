package model

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// responsesBody builds a Responses API request.
func responsesBody(req Request) map[string]any {
	input := []map[string]any{}
	for _, it := range req.Items {
		switch it.Type {
		case protocol.ItemMessage:
			partType := "input_text"
			if it.Role == protocol.RoleAssistant {
				partType = "output_text"
			}
			parts := []map[string]any{}
			if it.Content != "" || len(it.Images) == 0 {
				parts = append(parts, map[string]any{"type": partType, "text": it.Content})
			}
			for _, u := range it.Images {
				parts = append(parts, map[string]any{"type": "input_image", "image_url": u})
			}
			input = append(input, map[string]any{"type": "message", "role": it.Role, "content": parts})
		case protocol.ItemFunctionCall:
			input = append(input, map[string]any{"type": "function_call", "call_id": it.CallID, "name": it.Name, "arguments": it.Arguments})
		case protocol.ItemFunctionCallOutput:
			input = append(input, map[string]any{"type": "function_call_output", "call_id": it.CallID, "output": it.Output})
		}
	}
	body := map[string]any{"model": req.Model, "input": input, "stream": true, "store": false}
	if req.Instructions != "" {
		body["instructions"] = req.Instructions
	}
	if len(req.Tools) > 0 {
		tools := make([]map[string]any, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Parameters, "strict": false}
		}
		body["tools"] = tools
		body["parallel_tool_calls"] = req.ParallelToolCalls
	}
	if req.ReasoningEffort != "" {
		body["reasoning"] = map[string]any{"effort": req.ReasoningEffort, "summary": "auto"}
	}
	return body
}

type respEvent struct {
	Type     string          `json:"type"`
	Delta    string          `json:"delta"`
	ItemID   string          `json:"item_id"`
	Item     *respItem       `json:"item"`
	Response *respObject     `json:"response"`
	Message  string          `json:"message"`
	Code     any             `json:"code"`
	Error    json.RawMessage `json:"error"`
}

type respItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type respObject struct {
	ID    string          `json:"id"`
	Error json.RawMessage `json:"error"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		TotalTokens        int64 `json:"total_tokens"`
		InputTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails *struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

func (c *openAIClient) streamResponses(ctx context.Context, body map[string]any, dd *dedup, onDelta func(Delta)) (Response, error) {
	var resp Response
	type call struct{ callID, name, args string }
	var order []string
	calls := map[string]*call{}
	err := c.attempt(ctx, body, func(typ string, data []byte) (bool, error) {
		var ev respEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return false, &streamError{msg: fmt.Sprintf("unreadable event: %v", err), retryable: true}
		}
		if ev.Type == "" {
			ev.Type = typ
		}
		switch ev.Type {
		case "response.output_text.delta":
			resp.Text += ev.Delta
			dd.text(ev.Delta)
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			resp.Reasoning += ev.Delta
			if onDelta != nil {
				onDelta(Delta{Kind: DeltaReasoning, Text: ev.Delta})
			}
		case "response.output_item.added", "response.output_item.done":
			if ev.Item != nil && ev.Item.Type == "function_call" {
				cl := calls[ev.Item.ID]
				if cl == nil {
					cl = &call{}
					calls[ev.Item.ID] = cl
					order = append(order, ev.Item.ID)
				}
				cl.callID, cl.name = ev.Item.CallID, ev.Item.Name
				if ev.Type == "response.output_item.done" && ev.Item.Arguments != "" {
					cl.args = ev.Item.Arguments
				}
			}
		case "response.function_call_arguments.delta":
			if cl := calls[ev.ItemID]; cl != nil {
				cl.args += ev.Delta
			}
		case "response.function_call_arguments.done":
			if cl := calls[ev.ItemID]; cl != nil {
				var done struct {
					Arguments string `json:"arguments"`
				}
				if json.Unmarshal(data, &done) == nil && done.Arguments != "" {
					cl.args = done.Arguments
				}
			}
		case "response.completed", "response.incomplete":
			if r := ev.Response; r != nil {
				resp.ResponseID = r.ID
				if u := r.Usage; u != nil {
					resp.Usage = protocol.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
					if u.InputTokensDetails != nil {
						resp.Usage.CachedInputTokens = u.InputTokensDetails.CachedTokens
					}
					if u.OutputTokensDetails != nil {
						resp.Usage.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
					}
				}
			}
			return true, nil
		case "response.failed":
			if ev.Response != nil && len(ev.Response.Error) > 0 {
				return false, streamErrorObject(ev.Response.Error)
			}
			return false, &streamError{msg: "response failed", retryable: true}
		case "error":
			raw := ev.Error
			if len(raw) == 0 {
				raw = data
			}
			return false, streamErrorObject(raw)
		}
		return false, nil
	})
	if err != nil {
		return Response{}, err
	}
	for _, id := range order {
		cl := calls[id]
		resp.ToolCalls = append(resp.ToolCalls, ToolCallRequest{CallID: cl.callID, Name: cl.name, Arguments: cl.args})
	}
	return resp, nil
}
