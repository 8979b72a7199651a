package protocol

import (
	"encoding/json"
	"strings"
)

// ItemType names a conversation item kind (Responses API vocabulary).
type ItemType string

const (
	ItemMessage            ItemType = "message"
	ItemFunctionCall       ItemType = "function_call"
	ItemFunctionCallOutput ItemType = "function_call_output"
	ItemReasoning          ItemType = "reasoning"
	// ItemCompaction is the opaque summary a provider's compact endpoint
	// returns (EncryptedContent), replayed to that provider as is.
	ItemCompaction ItemType = "compaction"
)

// Roles of message items.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleDeveloper = "developer"
	RoleSystem    = "system"
	// RoleAgent marks a message another agent sent (spawn_agent's task,
	// send_input): it is stored and shown as coming from that agent, never
	// as the user's; the engine hands it to the model as labelled input.
	RoleAgent = "agent"
)

// Item is one entry of a thread's history, as sent to the model and stored in
// the rollout (`response_item` lines).
type Item struct {
	Type ItemType `json:"type"`
	// message
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	// From is the sending agent of a RoleAgent message.
	From ThreadID `json:"from,omitempty"`
	// Images attached to a user message or returned with a function call
	// output (data: or https: URLs).
	Images []string `json:"images,omitempty"`
	// function_call / function_call_output
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    string `json:"output,omitempty"`
	// Custom marks a custom (freeform) tool call and its output: Arguments
	// is the plain text the model wrote (an apply_patch patch), replayed
	// as a custom_tool_call on the Responses wire.
	Custom bool `json:"custom,omitempty"`
	// reasoning summary text, when the provider returns one
	Summary string `json:"summary,omitempty"`
	// EncryptedContent is a reasoning item's opaque state (Responses API),
	// sent back so the model keeps its reasoning across tool calls.
	EncryptedContent string `json:"encrypted_content,omitempty"`
	// Origin says who wrote a message when its role does not: OriginGrove
	// marks a notice grove itself gave the model (sent with role user, the
	// only role every provider accepts there) so front ends do not show it
	// as the user's words. Never sent to the model.
	Origin string `json:"origin,omitempty"`
	// Interrupted marks an assistant message cut off by an interrupt while
	// it streamed: what the user saw is kept, but it is not a whole reply.
	Interrupted bool `json:"interrupted,omitempty"`
}

// OriginGrove is the Origin of a message grove wrote itself.
const OriginGrove = "grove"

// GroveNotice builds a message from grove to the model: role user on the
// wire, marked as grove's in history and rollout.
func GroveNotice(text string) Item {
	return Item{Type: ItemMessage, Role: RoleUser, Content: text, Origin: OriginGrove}
}

// IsGroveNotice reports whether it is a message grove wrote, not the user.
func (it Item) IsGroveNotice() bool { return it.Origin == OriginGrove }

// The tags of the notice an interrupted turn leaves for the model, in
// Codex's shape (codex-rs/core/src/context/turn_aborted.rs).
const (
	turnAbortedOpen  = "<turn_aborted>"
	turnAbortedClose = "</turn_aborted>"
)

// TurnAbortedNotice is the grove notice recorded when a turn is
// interrupted (Codex's agents.interrupt_message): the next request tells
// the model the stop was the user's choice, not a failure.
func TurnAbortedNotice(guidance string) Item {
	return GroveNotice(turnAbortedOpen + "\n" + guidance + "\n" + turnAbortedClose)
}

// IsTurnAbortedNotice reports whether it is a TurnAbortedNotice.
func (it Item) IsTurnAbortedNotice() bool {
	return it.IsGroveNotice() && strings.HasPrefix(it.Content, turnAbortedOpen)
}

// UserMessage builds a user message item.
func UserMessage(text string) Item { return Item{Type: ItemMessage, Role: RoleUser, Content: text} }

// AgentMessage builds a message that agent from sent to another agent.
func AgentMessage(from ThreadID, text string) Item {
	return Item{Type: ItemMessage, Role: RoleAgent, From: from, Content: text}
}

// AssistantMessage builds an assistant message item.
func AssistantMessage(text string) Item {
	return Item{Type: ItemMessage, Role: RoleAssistant, Content: text}
}

// FunctionCall builds a function call item.
func FunctionCall(callID, name, args string) Item {
	return Item{Type: ItemFunctionCall, CallID: callID, Name: name, Arguments: args}
}

// CallArguments is a call's arguments as a JSON object: a custom call's
// plain-text input becomes {"input": text}, the function form of the
// same tool (apply_patch), so consumers read one shape.
func (it Item) CallArguments() string {
	if !it.Custom {
		return it.Arguments
	}
	return WrapCustomInput(it.Arguments)
}

// WrapCustomInput is a custom tool call's input as function arguments.
func WrapCustomInput(input string) string {
	b, _ := json.Marshal(struct {
		Input string `json:"input"`
	}{input})
	return string(b)
}

// FunctionCallOutput builds a function call output item.
func FunctionCallOutput(callID, output string) Item {
	return Item{Type: ItemFunctionCallOutput, CallID: callID, Output: output}
}

// InputItem is a structured user input (spawn_agent/send_input `items`), in
// the Codex shape: {"type":"text","text":…}, {"type":"image","image_url":…},
// {"type":"local_image","path":…}.
type InputItem struct {
	Type     string `json:"type" required:"true" enum:"text,image,local_image"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Path     string `json:"path,omitempty"`
}

// TokenUsage counts tokens of one model call or a running total.
type TokenUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	OutputTokens      int64 `json:"output_tokens"`
	ReasoningTokens   int64 `json:"reasoning_output_tokens,omitempty"`
	TotalTokens       int64 `json:"total_tokens"`
}

// Add accumulates u2 into u.
func (u *TokenUsage) Add(u2 TokenUsage) {
	u.InputTokens += u2.InputTokens
	u.CachedInputTokens += u2.CachedInputTokens
	u.OutputTokens += u2.OutputTokens
	u.ReasoningTokens += u2.ReasoningTokens
	u.TotalTokens += u2.TotalTokens
}
