package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Responses API request shapes (only the fields grove sends).
type (
	responsesRequest struct {
		Model             string              `json:"model"`
		Instructions      string              `json:"instructions,omitempty"`
		Input             []any               `json:"input"`
		Tools             []any               `json:"tools,omitempty"`
		ParallelToolCalls *bool               `json:"parallel_tool_calls,omitempty"`
		Reasoning         *responsesReasoning `json:"reasoning,omitempty"`
		Temperature       *float64            `json:"temperature,omitempty"`
		TopP              *float64            `json:"top_p,omitempty"`
		// Store is false unless the provider is set to store_responses:
		// grove keeps the history itself and resends it, reasoning
		// included, which needs its encrypted content.
		Store bool `json:"store"`
		// PreviousResponseID continues from a stored response: input is
		// then only what came after it (response_chain.go).
		PreviousResponseID string   `json:"previous_response_id,omitempty"`
		Stream             bool     `json:"stream"`
		Include            []string `json:"include,omitempty"`
		// PromptCacheKey routes a conversation's requests to the same
		// prompt cache (OpenAI; Codex sends its conversation id).
		PromptCacheKey string `json:"prompt_cache_key,omitempty"`
		// Text carries format: the output schema.
		Text *responsesText `json:"text,omitempty"`
	}
	responsesText struct {
		Format jsonSchemaFormat `json:"format"`
	}
	// responsesReasoningItem replays a reasoning item (stateless: no id).
	responsesReasoningItem struct {
		Type             string                 `json:"type"` // "reasoning"
		Summary          []responsesSummaryPart `json:"summary"`
		EncryptedContent string                 `json:"encrypted_content"`
	}
	// responsesCompaction replays the compact endpoint's summary item.
	responsesCompaction struct {
		Type             string `json:"type"` // "compaction"
		EncryptedContent string `json:"encrypted_content"`
	}
	responsesSummaryPart struct {
		Type string `json:"type"` // "summary_text"
		Text string `json:"text"`
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
		// Output is the text, or input_text and input_image parts when
		// the tool returned images.
		Output any `json:"output"`
	}
	responsesTool struct {
		Type        string          `json:"type"` // "function"
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	}
	// responsesCustomTool is a freeform tool (Codex's apply_patch).
	responsesCustomTool struct {
		Type        string          `json:"type"` // "custom"
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Format      *FreeformFormat `json:"format"`
	}
	// responsesCustomCall replays a custom tool call: its input is text.
	responsesCustomCall struct {
		Type   string `json:"type"` // "custom_tool_call"
		CallID string `json:"call_id"`
		Name   string `json:"name"`
		Input  string `json:"input"`
	}
	responsesCustomCallOutput struct {
		Type   string `json:"type"` // "custom_tool_call_output"
		CallID string `json:"call_id"`
		Output any    `json:"output"`
	}
)

// responsesTools maps the specs onto Responses tools: function tools,
// custom (freeform) tools and hosted tools as they are.
func responsesTools(specs []ToolSpec) ([]any, error) {
	out := make([]any, 0, len(specs))
	for _, t := range specs {
		switch {
		case len(t.Hosted) > 0:
			if !json.Valid(t.Hosted) {
				return nil, fmt.Errorf("tool %s: hosted tool is not valid JSON", t.Name)
			}
			out = append(out, t.Hosted)
		case t.Freeform != nil:
			desc := t.Description
			if t.Freeform.Description != "" {
				desc = t.Freeform.Description
			}
			out = append(out, responsesCustomTool{Type: "custom", Name: t.Name, Description: desc, Format: t.Freeform})
		default:
			params, err := toolParameters(t)
			if err != nil {
				return nil, err
			}
			out = append(out, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
		}
	}
	return out, nil
}

// responsesBody maps a Request onto the Responses API, leaving out the
// parameters the provider refused.
func responsesBody(req Request, omit map[string]bool) (*responsesRequest, error) {
	body := &responsesRequest{Model: req.Model, Instructions: req.Instructions, Stream: true, Input: make([]any, 0, len(req.Items))}
	if !omit["include"] {
		body.Include = []string{"reasoning.encrypted_content"}
	}
	if !omit["prompt_cache_key"] {
		body.PromptCacheKey = req.CacheKey
	}
	body.Input = append(body.Input, responsesInput(req.Items, newArgumentReplay(req.Items), omit)...)
	tools, err := responsesTools(req.Tools)
	if err != nil {
		return nil, err
	}
	if len(tools) > 0 {
		body.Tools = tools
	}
	if len(body.Tools) > 0 && !omit["parallel_tool_calls"] {
		body.ParallelToolCalls = &req.ParallelToolCalls
	}
	body.Temperature, body.TopP = sampling(req, omit)
	if req.ReasoningEffort != "" && !omit["reasoning"] && !omit["reasoning.effort"] {
		body.Reasoning = &responsesReasoning{Effort: req.ReasoningEffort}
		if !omit["reasoning.summary"] {
			body.Reasoning.Summary = "auto"
		}
	}
	if len(req.OutputSchema) > 0 {
		body.Text = &responsesText{Format: jsonSchemaFormat{Type: "json_schema", Name: outputSchemaName, Strict: true, Schema: req.OutputSchema}}
	}
	return body, nil
}

// responsesInput converts items to input elements, one per item at most
// (so every prefix of items is final).
func responsesInput(items []protocol.Item, replay argumentReplay, omit map[string]bool) []any {
	out := make([]any, 0, len(items))
	for _, it := range items {
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
			out = append(out, responsesMessage{Type: "message", Role: it.Role, Content: parts})
		case protocol.ItemFunctionCall:
			if it.Custom {
				out = append(out, responsesCustomCall{Type: "custom_tool_call", CallID: it.CallID, Name: it.Name, Input: it.Arguments})
				continue
			}
			out = append(out, responsesCall{Type: "function_call", CallID: it.CallID, Name: it.Name, Arguments: replay.arguments(it)})
		case protocol.ItemFunctionCallOutput:
			var output any = replay.output(it)
			if len(it.Images) > 0 {
				// A tool's images go back as input_image parts of its output.
				parts := []responsesPart{{Type: "input_text", Text: replay.output(it)}}
				for _, u := range it.Images {
					parts = append(parts, responsesPart{Type: "input_image", ImageURL: u})
				}
				output = parts
			}
			if it.Custom {
				out = append(out, responsesCustomCallOutput{Type: "custom_tool_call_output", CallID: it.CallID, Output: output})
				continue
			}
			out = append(out, responsesCallOutput{Type: "function_call_output", CallID: it.CallID, Output: output})
		case protocol.ItemCompaction:
			// A compact endpoint's summary goes back as it came.
			if it.EncryptedContent != "" {
				out = append(out, responsesCompaction{Type: "compaction", EncryptedContent: it.EncryptedContent})
			}
		case protocol.ItemReasoning:
			// Without its encrypted content (another provider, an older
			// rollout, include refused) a stateless call cannot use it.
			if it.EncryptedContent == "" || omit["include"] || omit[noReasoningReplay] {
				continue
			}
			summary := []responsesSummaryPart{}
			if it.Summary != "" {
				summary = append(summary, responsesSummaryPart{Type: "summary_text", Text: it.Summary})
			}
			out = append(out, responsesReasoningItem{Type: "reasoning", Summary: summary, EncryptedContent: it.EncryptedContent})
		}
	}
	return out
}

// respEvent is one Responses stream event (the fields grove reads).
type respEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	ItemID       string          `json:"item_id"`
	OutputIndex  *int            `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Arguments    *string         `json:"arguments"`
	Input        *string         `json:"input"`
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
	Input     string     `json:"input"` // custom_tool_call
	// EncryptedContent is a reasoning item's state, replayed next request.
	EncryptedContent string `json:"encrypted_content"`
	Content          []struct {
		Type    string `json:"type"` // output_text | refusal
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Status string `json:"status"` // web_search_call
	Action *struct {
		Type    string `json:"type"` // search | open_page | find_in_page
		Query   string `json:"query"`
		URL     string `json:"url"`
		Pattern string `json:"pattern"`
	} `json:"action"` // web_search_call
}

type respObject struct {
	ID                string          `json:"id"`
	Status            string          `json:"status"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []respItem `json:"output"`
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
	out        *delivery
	id         string
	usage      protocol.TokenUsage
	byItem     map[string]*callBuilder
	byOutput   map[int]*callBuilder
	streamed   map[string]bool // items (messages, reasoning) that sent deltas
	lastText   string          // the message item text came from last
	reasoning  []protocol.Item // reasoning items, in order, for replay
	seenReason map[string]bool
	incomplete string
	searches   []protocol.WebSearchCall
	seenSearch map[string]bool
}

func newResponsesAssembler(out *delivery) *responsesAssembler {
	return &responsesAssembler{out: out, byItem: map[string]*callBuilder{}, byOutput: map[int]*callBuilder{}, streamed: map[string]bool{}, seenReason: map[string]bool{}}
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
	"response.custom_tool_call_input.delta": true, "response.custom_tool_call_input.done": true,
	"response.completed": true, "response.incomplete": true, "response.failed": true, "error": true,
}

func (a *responsesAssembler) event(typ string, data []byte) (bool, error) {
	if typ != "" && !respHandled[typ] {
		return false, nil
	}
	var ev respEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		// The same bytes would arrive again: retrying cannot help.
		return false, &streamError{msg: fmt.Sprintf("unreadable event: %v", err)}
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
		a.text(ev.ItemID, ev.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		a.streamed[ev.ItemID] = true
		a.out.add(DeltaReasoning, ev.Delta)
	case "response.reasoning_summary_part.added":
		if a.out.reasoning.cur.Len() > 0 {
			a.out.add(DeltaReasoning, "\n\n") // one paragraph per summary part
		}
	case "response.output_item.added":
		if ev.Item != nil && (ev.Item.Type == "function_call" || ev.Item.Type == "custom_tool_call") {
			a.call(ev.Item.ID, ev.OutputIndex, ev.Item)
		}
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		a.out.addArguments(a.call(ev.ItemID, ev.OutputIndex, nil), ev.Delta)
	case "response.function_call_arguments.done":
		if ev.Arguments != nil {
			a.out.setArguments(a.call(ev.ItemID, ev.OutputIndex, nil), *ev.Arguments)
		}
	case "response.custom_tool_call_input.done":
		if ev.Input != nil {
			a.out.setArguments(a.call(ev.ItemID, ev.OutputIndex, nil), *ev.Input)
		}
	case "response.output_item.done":
		if ev.Item != nil {
			a.item(ev.Item, ev.OutputIndex)
		}
	case "response.completed", "response.incomplete":
		if ev.Response != nil {
			a.final(ev.Response)
		}
		if ev.Type == "response.incomplete" && a.incomplete == "" {
			a.incomplete = "the response is incomplete"
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

// text adds answer text of one message item; two messages of one
// response are separate paragraphs, never glued together.
func (a *responsesAssembler) text(itemID, s string) {
	if s == "" {
		return
	}
	if itemID != a.lastText && a.out.text.cur.Len() > 0 {
		a.out.add(DeltaText, "\n\n")
	}
	a.lastText = itemID
	a.out.add(DeltaText, s)
}

// call finds (or starts) the tool call of an output item.
func (a *responsesAssembler) call(itemID string, outputIndex *int, it *respItem) *callBuilder {
	c := a.byItem[itemID]
	if c == nil && itemID == "" && outputIndex != nil {
		c = a.byOutput[*outputIndex]
	}
	if c == nil {
		c = a.out.newCall()
		if itemID != "" {
			a.byItem[itemID] = c
		}
		if outputIndex != nil {
			a.byOutput[*outputIndex] = c
		}
	}
	if it != nil {
		if it.Type == "custom_tool_call" {
			c.custom = true
		}
		if it.CallID != "" {
			c.id = it.CallID
		}
		if it.Name != "" {
			c.name = it.Name
		}
	}
	return c
}

// item folds in a finished output item: the authoritative arguments of a
// call, text the server did not stream, a reasoning item to replay.
func (a *responsesAssembler) item(it *respItem, outputIndex *int) {
	switch it.Type {
	case "function_call":
		c := a.call(it.ID, outputIndex, it)
		if it.Arguments != "" {
			a.out.setArguments(c, string(it.Arguments))
		}
	case "custom_tool_call":
		// A freeform tool's input is plain text, not JSON: it reaches the
		// tool as is, and is replayed as {} with a note (see replay.go).
		c := a.call(it.ID, outputIndex, it)
		if it.Input != "" {
			a.out.setArguments(c, it.Input)
		}
	case "message":
		if a.streamed[it.ID] {
			return
		}
		a.streamed[it.ID] = true
		for _, p := range it.Content {
			a.text(it.ID, p.Text+p.Refusal)
		}
	case "web_search_call":
		a.webSearch(it)
	case "reasoning":
		a.keepReasoning(it)
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
		if len(it.Summary) == 0 {
			// Raw reasoning (reasoning_text parts: LM Studio, gpt-oss).
			for _, p := range it.Content {
				a.out.add(DeltaReasoning, p.Text)
			}
		}
	}
}

// webSearch records a hosted web search the provider ran (once: it comes
// in output_item.done and again in the final response).
func (a *responsesAssembler) webSearch(it *respItem) {
	key := it.ID
	if a.seenSearch == nil {
		a.seenSearch = map[string]bool{}
	}
	if key != "" && a.seenSearch[key] {
		return
	}
	a.seenSearch[key] = true
	ws := protocol.WebSearchCall{ID: it.ID, Status: it.Status}
	if it.Action != nil {
		ws.Action, ws.Query, ws.URL, ws.Pattern = it.Action.Type, it.Action.Query, it.Action.URL, it.Action.Pattern
	}
	a.searches = append(a.searches, ws)
}

// keepReasoning records a finished reasoning item for the next request.
func (a *responsesAssembler) keepReasoning(it *respItem) {
	// The same item comes in output_item.done and again in the final
	// response: keyed by id, or by its content when a server sends none.
	key := it.ID
	if key == "" {
		key = "content:" + it.EncryptedContent
	}
	if a.seenReason[key] {
		return
	}
	a.seenReason[key] = true
	parts := make([]string, 0, len(it.Summary))
	for _, s := range it.Summary {
		parts = append(parts, s.Text)
	}
	a.reasoning = append(a.reasoning, protocol.Item{Type: protocol.ItemReasoning, Summary: strings.Join(parts, "\n\n"), EncryptedContent: it.EncryptedContent})
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
	if r.Status == "incomplete" || r.IncompleteDetails != nil {
		a.incomplete = "the response is incomplete"
		if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
			a.incomplete += " (" + r.IncompleteDetails.Reason + ")"
		}
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
		return &streamError{msg: fmt.Sprintf("unreadable response: %v", err)}
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
	r := Response{Text: a.out.text.cur.String(), Reasoning: a.out.reasoning.cur.String(), Usage: a.usage, ResponseID: a.id, Incomplete: a.incomplete, WebSearches: a.searches}
	for _, c := range a.out.calls {
		r.ToolCalls = append(r.ToolCalls, c.request())
	}
	// Reasoning items are worth keeping only when they can be replayed.
	for _, it := range a.reasoning {
		if it.EncryptedContent != "" {
			r.ReasoningItems = append(r.ReasoningItems, it)
		}
	}
	return r
}
