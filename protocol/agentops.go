package protocol

// The operations a delegation surface asks of the engine. Every one acts
// for a calling thread, and the engine resolves ids only inside that
// thread's own session tree.

// SpawnRequest starts a default or role-template sub-agent of the caller
// (seed 000's spawn_agent). Input is Message or Items, not both.
type SpawnRequest struct {
	CallID           string
	Message          string
	Items            []InputItem
	AgentType        string
	AgentName        string
	WorkingDirectory string
	Model            string
	ReasoningEffort  string
	// Note is the initial thread note; nil lets the engine derive one.
	Note *string
	// ForkTurns starts the child on a copy of the caller's conversation:
	// 0 none, -1 all of it (Codex's fork_context, fork_turns "all"), N the
	// last N user turns.
	ForkTurns int
}

// ForkAllTurns in SpawnRequest.ForkTurns copies the whole conversation.
const ForkAllTurns = -1

// ListActiveRequest selects the rows of list_active_agents.
type ListActiveRequest struct {
	// Scope is children (default, ""), descendants or all.
	Scope         string
	IncludeTree   bool
	IncludeClosed bool
}

// ActiveAgent is one row of list_active_agents (seed 000's field names;
// absent values are null, the tree fields are present only on request).
type ActiveAgent struct {
	ThreadID          ThreadID    `json:"thread_id"`
	ThreadName        *string     `json:"thread_name"`
	ThreadNote        *string     `json:"thread_note"`
	AgentType         *string     `json:"agent_type"`
	AgentName         *string     `json:"agent_name"`
	Status            AgentStatus `json:"status"`
	StatusDurationSec float64     `json:"status_duration_sec"`
	Model             string      `json:"model"`
	ReasoningEffort   *string     `json:"reasoning_effort"`
	UpdatedAt         string      `json:"updated_at"`
	ParentThreadID    *ThreadID   `json:"parent_thread_id,omitempty"`
	Depth             *int        `json:"depth,omitempty"`
}
