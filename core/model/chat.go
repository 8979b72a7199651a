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
		Temperature       *float64      `json:"temperature,omitempty"`
		TopP              *float64      `json:"top_p,omitempty"`
		Stream            bool          `json:"stream"`
		// StreamOptions asks for the usage chunk; a few servers reject it.
		StreamOptions *chatStreamOptions `json:"stream_options,omitempty"`
		// ResponseFormat carries the output schema.
		ResponseFormat *chatResponseFormat `json:"response_format,omitempty"`
	}
	chatResponseFormat struct {
		Type       string           `json:"type"`
		JSONSchema jsonSchemaFormat `json:"json_schema"`
	}
	chatStreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	chatMessage struct {
		Role string `json:"role"`
		// Content is a string, a []chatPart (user text + images) or nil (an
		// assistant message that only carries tool calls).
		Content    any            `json:"content"`
		ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
		// ReasoningContent goes back on assistant messages that carry tool
		// calls: DeepSeek's thinking mode rejects the next request without it.
		ReasoningContent string `json:"reasoning_content,omitempty"`
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
func chatBody(req Request, omit map[string]bool) (*chatRequest, error) {
	body := &chatRequest{Model: req.Model, Stream: true}
	if !omit["stream_options"] {
		body.StreamOptions = &chatStreamOptions{IncludeUsage: true}
	}
	msgs := make([]chatMessage, 0, len(req.Items)+1)
	if req.Instructions != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: req.Instructions})
	}
	conv, _, _ := chatMessages(req.Items, newArgumentReplay(req.Items), omit)
	msgs = append(msgs, conv...)
	body.Messages = msgs
	for _, t := range req.Tools {
		if len(t.Hosted) > 0 {
			continue // Chat Completions has no hosted tools
		}
		params, err := toolParameters(t)
		if err != nil {
			return nil, err
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if len(body.Tools) > 0 && !omit["parallel_tool_calls"] {
		// Servers reject parallel_tool_calls without tools.
		body.ParallelToolCalls = &req.ParallelToolCalls
	}
	if !omit["reasoning_effort"] {
		body.ReasoningEffort = req.ReasoningEffort
	}
	body.Temperature, body.TopP = sampling(req, omit)
	if len(req.OutputSchema) > 0 {
		body.ResponseFormat = &chatResponseFormat{Type: "json_schema", JSONSchema: jsonSchemaFormat{Name: outputSchemaName, Strict: true, Schema: req.OutputSchema}}
	}
	return body, nil
}

// chatMessages converts items to messages. clean is the longest prefix of
// items whose messages are final (nothing pending: a later item cannot
// change them), and cleanMsgs how many messages that prefix produced.
func chatMessages(items []protocol.Item, replay argumentReplay, omit map[string]bool) (msgs []chatMessage, clean, cleanMsgs int) {
	msgs = make([]chatMessage, 0, len(items))
	// pending is an assistant message still collecting tool calls;
	// reasoning is the reasoning item of the reply it belongs to.
	var pending *chatMessage
	reasoning := ""
	// toolImages are images tool outputs returned: Chat's tool messages
	// are text, so they follow the run of tool messages as a user message.
	var toolImages []protocol.Item
	flushImages := func() {
		for _, it := range toolImages {
			msgs = append(msgs, chatMessage{Role: "user", Content: chatContent(protocol.Item{Content: "Images returned by tool call " + it.CallID + ":", Images: it.Images})})
		}
		toolImages = nil
	}
	flush := func() {
		if pending != nil {
			if len(pending.ToolCalls) > 0 && !omit["reasoning_content"] {
				pending.ReasoningContent = reasoning
			}
			msgs = append(msgs, *pending)
			pending = nil
		}
		reasoning = ""
	}
	for i, it := range items {
		if it.Type != protocol.ItemFunctionCallOutput {
			flushImages() // after the whole run of tool messages
		}
		switch it.Type {
		case protocol.ItemReasoning:
			flush()
			reasoning = it.Summary
		case protocol.ItemMessage:
			if it.Role == protocol.RoleAssistant {
				// Tool calls that follow this text join its message.
				r := reasoning
				flush()
				reasoning = r
				pending = &chatMessage{Role: "assistant", Content: it.Content}
				continue
			}
			flush()
			role := it.Role
			if role == protocol.RoleDeveloper {
				role = "system" // the one every compatible server knows
			}
			msgs = append(msgs, chatMessage{Role: role, Content: chatContent(it)})
		case protocol.ItemFunctionCall:
			if pending == nil {
				pending = &chatMessage{Role: "assistant"}
			}
			pending.ToolCalls = append(pending.ToolCalls, chatToolCall{ID: it.CallID, Type: "function", Function: chatFunction{Name: it.Name, Arguments: replay.callArguments(it)}})
		case protocol.ItemFunctionCallOutput:
			flush()
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: it.CallID, Content: replay.output(it)})
			if len(it.Images) > 0 {
				toolImages = append(toolImages, it)
			}
		}
		// Images of a run of tool outputs are still to come: not final.
		if pending == nil && reasoning == "" && len(toolImages) == 0 {
			clean, cleanMsgs = i+1, len(msgs)
		}
	}
	flush()
	flushImages()
	return msgs, clean, cleanMsgs
}

// sampling is the request's temperature and top_p, each left out once the
// provider has refused it (reasoning models do).
func sampling(req Request, omit map[string]bool) (temperature, topP *float64) {
	if !omit["temperature"] {
		temperature = req.Temperature
	}
	if !omit["top_p"] {
		topP = req.TopP
	}
	return temperature, topP
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
	// XGroq carries Groq's usage when the top-level one is absent.
	XGroq *struct {
		Usage *chatUsage `json:"usage"`
	} `json:"x_groq"`
}

type chatChoice struct {
	Index        int        `json:"index"`
	Delta        chatDelta  `json:"delta"`
	Message      *chatDelta `json:"message"`
	FinishReason string     `json:"finish_reason"`
	// Error is OpenRouter's mid-stream failure, sent with finish_reason
	// "error" when the upstream provider failed.
	Error json.RawMessage `json:"error"`
}

type chatDelta struct {
	Content chatContentParts `json:"content"`
	Refusal flexString       `json:"refusal"`
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

// chatContentParts is a delta's content: a string, null, or (Mistral's
// Magistral) an array of typed parts, "text" ones answer text and
// "thinking" ones reasoning.
type chatContentParts struct {
	Text, Reasoning string
}

func (c *chatContentParts) UnmarshalJSON(b []byte) error {
	*c = chatContentParts{}
	s := strings.TrimSpace(string(b))
	if s == "" || s == "null" {
		return nil
	}
	if s[0] != '[' {
		var f flexString
		if err := f.UnmarshalJSON(b); err != nil {
			return err
		}
		c.Text = string(f)
		return nil
	}
	var parts []chatContentPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var text, reasoning strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text", "output_text", "":
			text.WriteString(p.Text)
		case "thinking", "reasoning":
			for _, t := range p.Thinking {
				reasoning.WriteString(t.Text)
			}
			reasoning.WriteString(p.Text)
		}
		// Other parts (images, references) have no text to show.
	}
	c.Text, c.Reasoning = text.String(), reasoning.String()
	return nil
}

type chatContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking []struct {
		Text string `json:"text"`
	} `json:"thinking"`
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
	byIndex   map[int]*callBuilder
	finished  bool   // a finish_reason arrived: the reply is complete
	stop      string // the finish_reason
	sawChoice bool
}

func newChatAssembler(out *delivery) *chatAssembler {
	return &chatAssembler{out: out, byIndex: map[int]*callBuilder{}}
}

func (a *chatAssembler) event(_ string, data []byte) (bool, error) {
	if strings.TrimSpace(string(data)) == "[DONE]" {
		a.finished = true
		return true, nil
	}
	var ch chatChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		// The same bytes would arrive again: retrying cannot help.
		return false, &streamError{msg: fmt.Sprintf("unreadable chunk: %v", err)}
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
			continue // grove asks for one choice; others would interleave
		}
		if isErrorObject(c.Error) {
			return streamErrorObject(c.Error)
		}
		if c.FinishReason == "error" {
			return &streamError{msg: "provider error in stream: the reply ended with finish_reason \"error\"", retryable: true}
		}
		d := &c.Delta
		if c.Message != nil {
			d = c.Message
		}
		// vLLM sends the same text as reasoning_content and reasoning: one
		// field is enough (reasoning_content wins, it is the older name).
		r := string(d.ReasoningContent)
		if r == "" {
			r = string(d.Reasoning)
		}
		a.out.add(DeltaReasoning, d.Content.Reasoning+r)
		a.out.add(DeltaText, d.Content.Text+string(d.Refusal))
		for j, tc := range d.ToolCalls {
			idx := j
			if tc.Index != nil {
				idx = *tc.Index
			} else if c.Message == nil {
				idx = 0
			}
			call := a.byIndex[idx]
			// Some servers (Gemini's compatibility layer) send parallel
			// calls without an index: a new id at a used index is a new call.
			if call == nil || (tc.ID != "" && call.id != "" && tc.ID != call.id) {
				call = a.out.newCall()
				a.byIndex[idx] = call
			}
			if tc.ID != "" {
				call.id = tc.ID
			}
			// The name comes once (OpenAI), in pieces, or whole again with
			// every chunk (Fireworks, NIM, MiniMax): never repeat it.
			if n := tc.Function.Name; n != "" && n != call.name {
				call.name += n
			}
			a.out.addArguments(call, string(tc.Function.Arguments))
		}
		if c.FinishReason != "" {
			a.finished = true
			a.stop = c.FinishReason
		}
		a.sawChoice = true
	}
	if ch.Usage != nil {
		a.usage = ch.Usage.tokenUsage()
	} else if ch.XGroq != nil && ch.XGroq.Usage != nil {
		a.usage = ch.XGroq.Usage.tokenUsage()
	}
	return nil
}

// whole reads a non-streamed completion (a server that ignored stream).
func (a *chatAssembler) whole(body []byte) error {
	var ch chatChunk
	if err := json.Unmarshal(body, &ch); err != nil {
		return &streamError{msg: fmt.Sprintf("unreadable completion: %v", err)}
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
	for _, c := range a.out.calls {
		r.ToolCalls = append(r.ToolCalls, c.request())
	}
	switch a.stop {
	case "length":
		r.Incomplete = "the reply reached the output token limit (finish_reason length)"
	case "content_filter":
		r.Incomplete = "the provider's content filter stopped the reply (finish_reason content_filter)"
	}
	return r
}
