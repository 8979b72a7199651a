package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Chat Completions request shapes (only the fields grove sends).
type (
	chatRequest struct {
		Model             string        `json:"model"`
		Messages          []chatMessage `json:"messages"`
		Tools             []chatTool    `json:"tools,omitempty"`
		ParallelToolCalls *bool         `json:"parallel_tool_calls,omitempty"`
		ReasoningEffort   string        `json:"reasoning_effort,omitempty"`
		Stream            bool          `json:"stream"`
		StreamOptions     struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	chatMessage struct {
		Role string `json:"role"`
		// Content is a string, a []chatPart (user text + images) or nil (an
		// assistant message that only carries tool calls).
		Content    any            `json:"content"`
		ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	chatPart struct {
		Type     string `json:"type"` // "text" | "image_url"
		Text     string `json:"text,omitempty"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url,omitempty"`
	}
	chatToolCall struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function chatFunction `json:"function"`
	}
	chatFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	chatTool struct {
		Type     string       `json:"type"`
		Function toolFunction `json:"function"`
	}
	toolFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
)

// chatBody maps a Request onto Chat Completions: the instructions become a
// system message, consecutive function calls one assistant message with
// tool_calls (joined with the assistant text right before them), and each
// output a `tool` message.
func chatBody(req Request) (*chatRequest, error) {
	body := &chatRequest{Model: req.Model, Stream: true}
	body.StreamOptions.IncludeUsage = true
	msgs := make([]chatMessage, 0, len(req.Items)+1)
	if req.Instructions != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: req.Instructions})
	}
	// pending is an assistant message still collecting tool calls.
	var pending *chatMessage
	flush := func() {
		if pending != nil {
			msgs = append(msgs, *pending)
			pending = nil
		}
	}
	for _, it := range req.Items {
		switch it.Type {
		case protocol.ItemMessage:
			flush()
			if it.Role == protocol.RoleAssistant {
				// Tool calls that follow this text join its message.
				pending = &chatMessage{Role: "assistant", Content: it.Content}
				continue
			}
			role := it.Role
			if role == protocol.RoleDeveloper {
				role = "system" // the one every compatible server knows
			}
			msgs = append(msgs, chatMessage{Role: role, Content: chatContent(it)})
		case protocol.ItemFunctionCall:
			if pending == nil {
				pending = &chatMessage{Role: "assistant"}
			}
			pending.ToolCalls = append(pending.ToolCalls, chatToolCall{ID: it.CallID, Type: "function", Function: chatFunction{Name: it.Name, Arguments: it.Arguments}})
		case protocol.ItemFunctionCallOutput:
			flush()
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: it.CallID, Content: it.Output})
		}
		// Reasoning items have no Chat Completions form; they are dropped.
	}
	flush()
	body.Messages = msgs
	for _, t := range req.Tools {
		params, err := toolParameters(t)
		if err != nil {
			return nil, err
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if len(body.Tools) > 0 {
		// Servers reject parallel_tool_calls without tools.
		body.ParallelToolCalls = &req.ParallelToolCalls
	}
	body.ReasoningEffort = req.ReasoningEffort
	return body, nil
}

// chatContent is a user/system message's content: plain text, or parts
// when images are attached.
func chatContent(it protocol.Item) any {
	if len(it.Images) == 0 {
		return it.Content
	}
	parts := make([]chatPart, 0, len(it.Images)+1)
	if it.Content != "" {
		parts = append(parts, chatPart{Type: "text", Text: it.Content})
	}
	for _, u := range it.Images {
		p := chatPart{Type: "image_url"}
		p.ImageURL = &struct {
			URL string `json:"url"`
		}{URL: u}
		parts = append(parts, p)
	}
	return parts
}

// toolParameters returns a tool's JSON schema, checked, with an empty
// object schema when it has none.
func toolParameters(t ToolSpec) (json.RawMessage, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("tool without a name")
	}
	if len(strings.TrimSpace(string(t.Parameters))) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	if !json.Valid(t.Parameters) {
		return nil, fmt.Errorf("tool %s: parameters are not valid JSON", t.Name)
	}
	return t.Parameters, nil
}

// chatChunk is one streamed chunk; a non-streamed completion has the same
// fields under "message" instead of "delta".
type chatChunk struct {
	ID      string          `json:"id"`
	Choices []chatChoice    `json:"choices"`
	Usage   *chatUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chatChoice struct {
	Index        int        `json:"index"`
	Delta        chatDelta  `json:"delta"`
	Message      *chatDelta `json:"message"`
	FinishReason string     `json:"finish_reason"`
}

type chatDelta struct {
	Content flexString `json:"content"`
	Refusal flexString `json:"refusal"`
	// Reasoning arrives as reasoning_content (DeepSeek, vLLM, llama.cpp) or
	// reasoning (OpenRouter, Ollama).
	ReasoningContent flexString `json:"reasoning_content"`
	Reasoning        flexString `json:"reasoning"`
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string     `json:"name"`
			Arguments flexString `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *chatUsage) tokenUsage() protocol.TokenUsage {
	t := protocol.TokenUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		t.CachedInputTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		t.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	if t.TotalTokens == 0 {
		t.TotalTokens = t.InputTokens + t.OutputTokens
	}
	return t
}

// flexString accepts a JSON string, null, or any other JSON value (kept as
// its text: a few servers send tool arguments as an object).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || string(b) == "null":
		*f = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	default:
		*f = flexString(b)
	}
	return nil
}

// chatAssembler builds one attempt's Response from chat chunks.
type chatAssembler struct {
	out       *delivery
	id        string
	usage     protocol.TokenUsage
	calls     []*ToolCallRequest
	byIndex   map[int]*ToolCallRequest
	finished  bool // a finish_reason arrived: the reply is complete
	sawChoice bool
}

func newChatAssembler(out *delivery) *chatAssembler {
	return &chatAssembler{out: out, byIndex: map[int]*ToolCallRequest{}}
}

func (a *chatAssembler) event(_ string, data []byte) (bool, error) {
	if strings.TrimSpace(string(data)) == "[DONE]" {
		a.finished = true
		return true, nil
	}
	var ch chatChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return false, &streamError{msg: fmt.Sprintf("unreadable chunk: %v", err), retryable: true}
	}
	return false, a.chunk(&ch)
}

func (a *chatAssembler) chunk(ch *chatChunk) error {
	if isErrorObject(ch.Error) {
		return streamErrorObject(ch.Error)
	}
	if ch.ID != "" {
		a.id = ch.ID
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 {
			continue // grove asks for one choice
		}
		d := &c.Delta
		if c.Message != nil {
			d = c.Message
		}
		if r := string(d.ReasoningContent) + string(d.Reasoning); r != "" {
			a.out.add(DeltaReasoning, r)
		}
		if t := string(d.Content) + string(d.Refusal); t != "" {
			a.out.add(DeltaText, t)
		}
		for j, tc := range d.ToolCalls {
			idx := j
			if tc.Index != nil {
				idx = *tc.Index
			} else if c.Message == nil {
				idx = 0
			}
			call := a.byIndex[idx]
			// Some servers (Gemini's compatibility layer) give every
			// parallel call index 0: a new id at a used index is a new call.
			if call == nil || (tc.ID != "" && call.CallID != "" && tc.ID != call.CallID) {
				call = &ToolCallRequest{}
				a.byIndex[idx] = call
				a.calls = append(a.calls, call)
			}
			if tc.ID != "" {
				call.CallID = tc.ID
			}
			// The name comes once (OpenAI) or again with every chunk.
			if n := tc.Function.Name; n != "" && n != call.Name {
				call.Name += n
			}
			call.Arguments += string(tc.Function.Arguments)
		}
		if c.FinishReason != "" {
			a.finished = true
		}
		a.sawChoice = true
	}
	if ch.Usage != nil {
		a.usage = ch.Usage.tokenUsage()
	}
	return nil
}

// whole reads a non-streamed completion (a server that ignored stream).
func (a *chatAssembler) whole(body []byte) error {
	var ch chatChunk
	if err := json.Unmarshal(body, &ch); err != nil {
		return &streamError{msg: fmt.Sprintf("unreadable completion: %v", err), retryable: true}
	}
	if err := a.chunk(&ch); err != nil {
		return err
	}
	if !a.sawChoice {
		return &streamError{msg: "completion without choices", retryable: true}
	}
	a.finished = true
	return nil
}

// end accepts a stream that stopped after its finish_reason (the usage
// chunk or [DONE] may be missing); anything earlier is incomplete.
func (a *chatAssembler) end(reason error) error {
	if a.finished {
		return nil
	}
	return reason
}

func (a *chatAssembler) response() Response {
	r := Response{Text: a.out.text.cur.String(), Reasoning: a.out.reasoning.cur.String(), Usage: a.usage, ResponseID: a.id}
	for _, c := range a.calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	return r
}
