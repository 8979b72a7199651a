package model

import (
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// Responses API request shapes (only the fields grove sends).
type (
	responsesRequest struct {
		Model             string              `json:"model"`
		Instructions      string              `json:"instructions,omitempty"`
		Input             []any               `json:"input"`
		Tools             []responsesTool     `json:"tools,omitempty"`
		ParallelToolCalls *bool               `json:"parallel_tool_calls,omitempty"`
		Reasoning         *responsesReasoning `json:"reasoning,omitempty"`
		// Store is false: grove keeps the history itself and resends it.
		Store  bool `json:"store"`
		Stream bool `json:"stream"`
	}
	responsesReasoning struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary,omitempty"`
	}
	responsesMessage struct {
		Type    string          `json:"type"` // "message"
		Role    string          `json:"role"`
		Content []responsesPart `json:"content"`
	}
	responsesPart struct {
		Type     string `json:"type"` // input_text | output_text | input_image
		Text     string `json:"text,omitempty"`
		ImageURL string `json:"image_url,omitempty"`
	}
	responsesCall struct {
		Type      string `json:"type"` // "function_call"
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	responsesCallOutput struct {
		Type   string `json:"type"` // "function_call_output"
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
	responsesTool struct {
		Type        string          `json:"type"` // "function"
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	}
)

// responsesBody maps a Request onto the Responses API. summary asks for
// reasoning summaries along with the effort.
func responsesBody(req Request, summary bool) (*responsesRequest, error) {
	body := &responsesRequest{Model: req.Model, Instructions: req.Instructions, Stream: true, Input: make([]any, 0, len(req.Items))}
	for _, it := range req.Items {
		switch it.Type {
		case protocol.ItemMessage:
			partType := "input_text"
			if it.Role == protocol.RoleAssistant {
				partType = "output_text"
			}
			parts := make([]responsesPart, 0, len(it.Images)+1)
			if it.Content != "" || len(it.Images) == 0 {
				parts = append(parts, responsesPart{Type: partType, Text: it.Content})
			}
			for _, u := range it.Images {
				parts = append(parts, responsesPart{Type: "input_image", ImageURL: u})
			}
			body.Input = append(body.Input, responsesMessage{Type: "message", Role: it.Role, Content: parts})
		case protocol.ItemFunctionCall:
			body.Input = append(body.Input, responsesCall{Type: "function_call", CallID: it.CallID, Name: it.Name, Arguments: it.Arguments})
		case protocol.ItemFunctionCallOutput:
			body.Input = append(body.Input, responsesCallOutput{Type: "function_call_output", CallID: it.CallID, Output: it.Output})
		}
		// Reasoning items would need the encrypted content a stateless
		// (store=false) call does not return; they are dropped.
	}
	for _, t := range req.Tools {
		params, err := toolParameters(t)
		if err != nil {
			return nil, err
		}
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	if len(body.Tools) > 0 {
		body.ParallelToolCalls = &req.ParallelToolCalls
	}
	if req.ReasoningEffort != "" {
		body.Reasoning = &responsesReasoning{Effort: req.ReasoningEffort}
		if summary {
			body.Reasoning.Summary = "auto"
		}
	}
	return body, nil
}

// respEvent is one Responses stream event (the fields grove reads).
type respEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	ItemID       string          `json:"item_id"`
	OutputIndex  *int            `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Arguments    *string         `json:"arguments"`
	Item         *respItem       `json:"item"`
	Response     *respObject     `json:"response"`
	Error        json.RawMessage `json:"error"`
}

type respItem struct {
	Type      string     `json:"type"` // message | function_call | reasoning | …
	ID        string     `json:"id"`
	CallID    string     `json:"call_id"`
	Name      string     `json:"name"`
	Arguments flexString `json:"arguments"`
	Content   []struct {
		Type    string `json:"type"` // output_text | refusal
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

type respObject struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Error  json.RawMessage `json:"error"`
	Output []respItem      `json:"output"`
	Usage  *struct {
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

// responsesAssembler builds one attempt's Response from Responses events.
// Tool calls are keyed by item id (output index as a fallback); items whose
// text was not streamed as deltas are taken from output_item.done or the
// final response, so servers that skip deltas still work.
type responsesAssembler struct {
	out      *delivery
	id       string
	usage    protocol.TokenUsage
	calls    []*ToolCallRequest
	byItem   map[string]*ToolCallRequest
	byOutput map[int]*ToolCallRequest
	streamed map[string]bool // items (messages, reasoning) that sent deltas
}

func newResponsesAssembler(out *delivery) *responsesAssembler {
	return &responsesAssembler{out: out, byItem: map[string]*ToolCallRequest{}, byOutput: map[int]*ToolCallRequest{}, streamed: map[string]bool{}}
}

// respHandled are the event types the assembler reads; others (text done,
// content parts, …) repeat what the deltas said and are skipped undecoded.
var respHandled = map[string]bool{
	"response.created": true, "response.in_progress": true,
	"response.output_text.delta": true, "response.refusal.delta": true,
	"response.reasoning_summary_text.delta": true, "response.reasoning_text.delta": true,
	"response.reasoning_summary_part.added": true,
	"response.output_item.added":            true, "response.output_item.done": true,
	"response.function_call_arguments.delta": true, "response.function_call_arguments.done": true,
	"response.completed": true, "response.incomplete": true, "response.failed": true, "error": true,
}

func (a *responsesAssembler) event(typ string, data []byte) (bool, error) {
	if typ != "" && !respHandled[typ] {
		return false, nil
	}
	var ev respEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, &streamError{msg: fmt.Sprintf("unreadable event: %v", err), retryable: true}
	}
	if ev.Type == "" {
		ev.Type = typ
	}
	switch ev.Type {
	case "response.created", "response.in_progress":
		if ev.Response != nil {
			a.id = ev.Response.ID
		}
	case "response.output_text.delta", "response.refusal.delta":
		a.streamed[ev.ItemID] = true
		a.out.add(DeltaText, ev.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		a.streamed[ev.ItemID] = true
		a.out.add(DeltaReasoning, ev.Delta)
	case "response.reasoning_summary_part.added":
		if a.out.reasoning.cur.Len() > 0 {
			a.out.add(DeltaReasoning, "\n\n") // one paragraph per summary part
		}
	case "response.output_item.added":
		if ev.Item != nil && ev.Item.Type == "function_call" {
			a.call(ev.Item.ID, ev.OutputIndex, ev.Item)
		}
	case "response.function_call_arguments.delta":
		a.call(ev.ItemID, ev.OutputIndex, nil).Arguments += ev.Delta
	case "response.function_call_arguments.done":
		if ev.Arguments != nil {
			a.call(ev.ItemID, ev.OutputIndex, nil).Arguments = *ev.Arguments
		}
	case "response.output_item.done":
		if ev.Item != nil {
			a.item(ev.Item, ev.OutputIndex)
		}
	case "response.completed", "response.incomplete":
		if ev.Response != nil {
			a.final(ev.Response)
		}
		return true, nil
	case "response.failed":
		if ev.Response != nil && isErrorObject(ev.Response.Error) {
			return false, streamErrorObject(ev.Response.Error)
		}
		return false, &streamError{msg: "provider error in stream: response failed", retryable: true}
	case "error":
		raw := ev.Error
		if !isErrorObject(raw) {
			raw = data // the event itself carries code and message
		}
		return false, streamErrorObject(raw)
	}
	return false, nil
}

// call finds (or starts) the function call of an output item.
func (a *responsesAssembler) call(itemID string, outputIndex *int, it *respItem) *ToolCallRequest {
	c := a.byItem[itemID]
	if c == nil && itemID == "" && outputIndex != nil {
		c = a.byOutput[*outputIndex]
	}
	if c == nil {
		c = &ToolCallRequest{}
		a.calls = append(a.calls, c)
		if itemID != "" {
			a.byItem[itemID] = c
		}
		if outputIndex != nil {
			a.byOutput[*outputIndex] = c
		}
	}
	if it != nil {
		if it.CallID != "" {
			c.CallID = it.CallID
		}
		if it.Name != "" {
			c.Name = it.Name
		}
	}
	return c
}

// item folds in a finished output item: the authoritative arguments of a
// call, or text/reasoning the server did not stream.
func (a *responsesAssembler) item(it *respItem, outputIndex *int) {
	switch it.Type {
	case "function_call":
		c := a.call(it.ID, outputIndex, it)
		if it.Arguments != "" {
			c.Arguments = string(it.Arguments)
		}
	case "message":
		if a.streamed[it.ID] {
			return
		}
		a.streamed[it.ID] = true
		for _, p := range it.Content {
			a.out.add(DeltaText, p.Text+p.Refusal)
		}
	case "reasoning":
		if a.streamed[it.ID] {
			return
		}
		a.streamed[it.ID] = true
		for i, s := range it.Summary {
			if i > 0 || a.out.reasoning.cur.Len() > 0 {
				a.out.add(DeltaReasoning, "\n\n")
			}
			a.out.add(DeltaReasoning, s.Text)
		}
	}
}

// final reads the completed response: id, usage, and output items not
// seen as events.
func (a *responsesAssembler) final(r *respObject) {
	if r.ID != "" {
		a.id = r.ID
	}
	for i := range r.Output {
		idx := i
		a.item(&r.Output[i], &idx)
	}
	if u := r.Usage; u != nil {
		a.usage = protocol.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
		if u.InputTokensDetails != nil {
			a.usage.CachedInputTokens = u.InputTokensDetails.CachedTokens
		}
		if u.OutputTokensDetails != nil {
			a.usage.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
		}
		if a.usage.TotalTokens == 0 {
			a.usage.TotalTokens = a.usage.InputTokens + a.usage.OutputTokens
		}
	}
}

// whole reads a non-streamed response object.
func (a *responsesAssembler) whole(body []byte) error {
	var r respObject
	if err := json.Unmarshal(body, &r); err != nil {
		return &streamError{msg: fmt.Sprintf("unreadable response: %v", err), retryable: true}
	}
	if isErrorObject(r.Error) {
		return streamErrorObject(r.Error)
	}
	if r.Status == "failed" {
		return &streamError{msg: "provider error: response failed", retryable: true}
	}
	a.final(&r)
	return nil
}

// end: a Responses stream is complete only with response.completed (or
// response.incomplete).
func (a *responsesAssembler) end(reason error) error { return reason }

func (a *responsesAssembler) response() Response {
	r := Response{Text: a.out.text.cur.String(), Reasoning: a.out.reasoning.cur.String(), Usage: a.usage, ResponseID: a.id}
	for _, c := range a.calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	return r
}
