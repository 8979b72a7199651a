// Package model is grove's one wrapper around the model APIs: providers,
// the Chat Completions and Responses wire APIs over openai-go, streaming,
// retries, and a scripted provider for tests and the offline demo.
package model

import (
	"context"
	"encoding/json"

	"github.com/grovecli/grove/protocol"
)

// ToolSpec describes one tool offered to the model: a function tool, or
// (Freeform set) a custom tool whose input is plain text, or (Hosted set)
// a tool the provider runs itself.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema (object)
	// Freeform makes the tool a custom tool on the Responses wire: the
	// model writes plain text matching the grammar (apply_patch's patch)
	// instead of JSON. Wires without custom tools send the function form
	// (Parameters) instead.
	Freeform *FreeformFormat `json:"freeform,omitempty"`
	// Hosted is a provider-hosted tool sent as this JSON object (Responses
	// {"type":"web_search"}); wires without hosted tools leave it out.
	Hosted json.RawMessage `json:"hosted,omitempty"`
}

// FreeformFormat is a custom tool's input format (Responses "format").
type FreeformFormat struct {
	Type       string `json:"type"`   // "grammar"
	Syntax     string `json:"syntax"` // "lark"
	Definition string `json:"definition"`
	// Description replaces the tool's description in its custom form
	// (the function form's describes the JSON wrapping).
	Description string `json:"-"`
}

// Request is one model call.
type Request struct {
	Model           string
	Instructions    string // system/developer prompt
	Items           []protocol.Item
	Tools           []ToolSpec
	ReasoningEffort string // "" = provider default
	// ParallelToolCalls lets the model return several calls in one reply.
	ParallelToolCalls bool
	// Prefix, when set, keeps the encoded history between requests of one
	// conversation (see PrefixCache); nil encodes every item each time.
	Prefix *PrefixCache
	// CacheKey names the conversation for the provider's prompt cache
	// (Responses prompt_cache_key); "" sends none.
	CacheKey string
	// OutputSchema (a JSON Schema object) constrains the final message:
	// Responses text.format, Chat response_format (`grove exec
	// --output-schema`, as Codex sends it).
	OutputSchema json.RawMessage
	// Temperature and TopP are sampling settings (nil = the provider's
	// default); a provider that refuses them has them omitted.
	Temperature *float64
	TopP        *float64
}

// outputSchemaName is the schema name Codex sends with --output-schema.
const outputSchemaName = "codex_output_schema"

// jsonSchemaFormat is the json_schema format both wires take (Responses
// inlines it in text.format, Chat nests it under json_schema).
type jsonSchemaFormat struct {
	Type   string          `json:"type,omitempty"`
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// DeltaKind says what a streamed delta carries.
type DeltaKind int

const (
	DeltaText DeltaKind = iota
	DeltaReasoning
	// DeltaReset tells the consumer to drop the text streamed so far in this
	// call (a retried stream diverged from what was already shown).
	DeltaReset
	// DeltaRetry reports that the stream failed and is being retried; Text
	// holds a human-readable reason ("429 from openai, retry 2/5 in 1.2s").
	DeltaRetry
	// DeltaWarning reports something the user should know about a reply
	// that nevertheless arrived: a truncated message, a reply cut by the
	// token limit, a parameter the provider refused and grove now omits.
	DeltaWarning
)

// Delta is one streamed fragment.
type Delta struct {
	Kind DeltaKind
	Text string
}

// ToolCallRequest is one function call the model asked for.
type ToolCallRequest struct {
	CallID    string
	Name      string
	Arguments string // raw JSON text as produced by the model
	// Custom marks a custom (freeform) tool call: Arguments is the plain
	// text input the model wrote, not JSON.
	Custom bool
}

// Response is the assembled result of one model call.
type Response struct {
	Text      string // assistant message text ("" when only tool calls)
	Reasoning string
	ToolCalls []ToolCallRequest
	Usage     protocol.TokenUsage
	// ResponseID is the provider's id for the response, when it has one.
	ResponseID string
	// ReasoningItems are the reply's reasoning items that must be sent
	// back with the next request (Responses API: encrypted content, since
	// grove calls with store=false); nil when there are none.
	ReasoningItems []protocol.Item
	// Incomplete says why the reply stopped early (the output token limit,
	// a content filter); "" for a complete reply.
	Incomplete string
	// WebSearches are the hosted web searches the provider ran during the
	// reply (Responses web_search_call items), in order.
	WebSearches []protocol.WebSearchCall
}

// ModelInfo describes one model the provider offers.
type ModelInfo struct {
	ID string
	// ReasoningEfforts lists supported efforts; empty = unknown (accept any
	// of the standard ones).
	ReasoningEfforts []string
	// ContextWindow is the model's input context in tokens when the
	// provider's list says (0 = unknown).
	ContextWindow int64
}

// Client streams model calls. Implementations retry transient faults
// themselves (bounded) and report retries through onDelta(DeltaRetry).
type Client interface {
	// Stream runs one call; onDelta (may be nil) receives streamed text in
	// order, from the calling goroutine's perspective serially.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
	// Models lists the provider's models. ErrModelsUnavailable means the
	// list is temporarily unknown; ErrModelsUnsupported that the provider
	// has no list (callers then accept any model name).
	Models(ctx context.Context) ([]ModelInfo, error)
	// Name is the provider name for display ("openai", "demo", …).
	Name() string
}

// WireTools is the "tools" array a request with these specs sends on a
// wire ("responses" or "chat"), exactly as encoded for the provider.
func WireTools(wire string, specs []ToolSpec) (json.RawMessage, error) {
	var body any
	var err error
	if wire == "chat" {
		body, err = chatBody(Request{Model: "m", Tools: specs}, nil)
	} else {
		body, err = responsesBody(Request{Model: "m", Tools: specs}, nil)
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var req struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	if len(req.Tools) == 0 {
		return json.RawMessage("[]"), nil
	}
	return req.Tools, nil
}
