package rollout

import (
	"bytes"
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
	ID       protocol.ThreadID `json:"id"`
	ParentID protocol.ThreadID `json:"parent_id,omitempty"`
	// ForkedFromID is the session a fork copied (Codex's forked_from_id).
	ForkedFromID protocol.ThreadID     `json:"forked_from_id,omitempty"`
	Depth        int                   `json:"depth"`
	Source       protocol.ThreadSource `json:"source"`
	AgentType    string                `json:"agent_type,omitempty"`
	AgentName    string                `json:"agent_name,omitempty"`
	// AgentNickname is a sub-agent's short unique name (Codex's
	// agent_nickname); absent in rollouts written before nicknames.
	AgentNickname   string                  `json:"agent_nickname,omitempty"`
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
	// ExactInstructions: Instructions are the thread's whole system
	// prompt (a seed-004 Task agent's definition prompt), not a role
	// section inside grove's.
	ExactInstructions bool     `json:"exact_instructions,omitempty"`
	AllowList         []string `json:"allow_list,omitempty"`
	DenyList          []string `json:"deny_list,omitempty"`
	// Surface is the thread's delegation surface ("" = none); absent in
	// rollouts written before surfaces existed.
	Surface *string `json:"surface,omitempty"`
	// Host is the [hosts.<name>] the thread's tools ran on ("" = this
	// machine); a resumed session runs there again unless --host says
	// otherwise.
	Host      string    `json:"host,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	// Git is the checkout a root session started in (Codex's
	// SessionMeta.git); nil outside a git repository.
	Git *GitInfo `json:"git,omitempty"`
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

// parseLine decodes one line; it fails on torn or foreign lines. The
// payload of a line in grove's own layout is a slice of b, not a copy (a
// 200 MB tool output is then held once, not twice); others are decoded in
// full.
func parseLine(b []byte) (Line, error) {
	if l, ok := parseOwnLayout(b); ok {
		return l, nil
	}
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

// parseOwnLayout reads a line as the Recorder writes it,
// {"timestamp":T,"type":"X","payload":P}, with P returned as a sub-slice;
// ok is false for any other layout (or invalid JSON), which parseLine then
// decodes the general way.
func parseOwnLayout(b []byte) (Line, bool) {
	const head, mid, tail = `{"timestamp":`, `,"type":"`, `","payload":`
	if !bytes.HasPrefix(b, []byte(head)) || len(b) < 2 || b[len(b)-1] != '}' {
		return Line{}, false
	}
	rest := b[len(head):]
	i := bytes.Index(rest[:min(len(rest), 64)], []byte(mid))
	if i < 0 {
		return Line{}, false
	}
	var l Line
	if err := l.Timestamp.UnmarshalJSON(rest[:i]); err != nil {
		return Line{}, false
	}
	rest = rest[i+len(mid):]
	j := bytes.Index(rest[:min(len(rest), 64)], []byte(tail))
	if j <= 0 || bytes.ContainsAny(rest[:j], `"\\`) {
		return Line{}, false
	}
	l.Type = string(rest[:j])
	l.Payload = rest[j+len(tail) : len(rest)-1]
	if !json.Valid(l.Payload) {
		return Line{}, false
	}
	return l, true
}

// GitInfo is where in git a session started: Codex's GitInfo, with its
// field names.
type GitInfo struct {
	CommitHash    string `json:"commit_hash,omitempty"`
	Branch        string `json:"branch,omitempty"`
	RepositoryURL string `json:"repository_url,omitempty"`
}
