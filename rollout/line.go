package rollout

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Line types.
const (
	TypeSessionMeta  = "session_meta"
	TypeResponseItem = "response_item"
	TypeEventMsg     = "event_msg"
	TypeTurnContext  = "turn_context"
	// TypeCompacted records a compaction (Codex's RolloutItem::Compacted):
	// from this line on, the history is its replacement_history.
	TypeCompacted = "compacted"
)

// Compacted is a compacted line's payload, in Codex's shape: the summary
// message and the history that replaced everything before it.
type Compacted struct {
	Message            string          `json:"message"`
	ReplacementHistory []protocol.Item `json:"replacement_history"`
}

// Line is one JSONL record.
type Line struct {
	Timestamp time.Time       `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// SessionMeta is the first line of every rollout.
type SessionMeta struct {
	ID              protocol.ThreadID       `json:"id"`
	ParentID        protocol.ThreadID       `json:"parent_id,omitempty"`
	Depth           int                     `json:"depth"`
	Source          protocol.ThreadSource   `json:"source"`
	AgentType       string                  `json:"agent_type,omitempty"`
	AgentName       string                  `json:"agent_name,omitempty"`
	Model           string                  `json:"model"`
	Provider        string                  `json:"provider,omitempty"`
	ReasoningEffort string                  `json:"reasoning_effort,omitempty"`
	Cwd             string                  `json:"cwd"`
	Sandbox         protocol.SandboxPolicy  `json:"sandbox"`
	ApprovalPolicy  protocol.ApprovalPolicy `json:"approval_policy,omitempty"`
	SpawnCallID     string                  `json:"spawn_call_id,omitempty"`
	Note            string                  `json:"note,omitempty"`
	ThreadName      string                  `json:"thread_name,omitempty"`
	Instructions    string                  `json:"instructions,omitempty"`
	AllowList       []string                `json:"allow_list,omitempty"`
	DenyList        []string                `json:"deny_list,omitempty"`
	// Surface is the thread's delegation surface ("" = none); absent in
	// rollouts written before surfaces existed.
	Surface   *string   `json:"surface,omitempty"`
	Timestamp time.Time `json:"timestamp"`
}

// TurnContext records the settings a turn ran with.
type TurnContext struct {
	TurnID          string                  `json:"turn_id"`
	Model           string                  `json:"model"`
	ReasoningEffort string                  `json:"reasoning_effort,omitempty"`
	Cwd             string                  `json:"cwd"`
	Sandbox         protocol.SandboxPolicy  `json:"sandbox"`
	ApprovalPolicy  protocol.ApprovalPolicy `json:"approval_policy,omitempty"`
}

// parseLine decodes one line; it fails on torn or foreign lines.
func parseLine(b []byte) (Line, error) {
	var l Line
	if err := json.Unmarshal(b, &l); err != nil {
		return Line{}, err
	}
	if l.Type == "" {
		return Line{}, errNoType
	}
	return l, nil
}

var errNoType = errors.New(`line has no "type"`)
