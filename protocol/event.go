package protocol

import "time"

// EventType names an engine event; snake_case on the wire (`grove exec --json`).
type EventType string

const (
	EventThreadStarted     EventType = "thread_started"
	EventThreadClosed      EventType = "thread_closed"
	EventTurnStarted       EventType = "turn_started"
	EventTurnCompleted     EventType = "turn_completed"
	EventMessageDelta      EventType = "message_delta"
	EventMessageReset      EventType = "message_reset"
	EventReasoningDelta    EventType = "reasoning_delta"
	EventMessage           EventType = "message"
	EventUserMessage       EventType = "user_message"
	EventAgentInput        EventType = "agent_input" // a message from another agent (From)
	EventToolCallBegin     EventType = "tool_call_begin"
	EventToolCallEnd       EventType = "tool_call_end"
	EventPlanUpdated       EventType = "plan_updated"
	EventApprovalRequested EventType = "approval_requested"
	EventApprovalResolved  EventType = "approval_resolved"
	EventStatusChanged     EventType = "status_changed"
	EventBackground        EventType = "background_event"
	EventNoteUpdated       EventType = "thread_note_updated"
	EventTokenUsage        EventType = "token_usage"
	EventError             EventType = "error"
	EventWarning           EventType = "warning"
	EventStreamRetry       EventType = "stream_retry"
	EventShutdownComplete  EventType = "shutdown_complete"
)

// EventToolProgress reports progress of a running tool call (an MCP
// server's notifications/progress): Tool carries the call id and name,
// Message the progress text.
const EventToolProgress EventType = "tool_progress"

// EventExecOutputDelta carries output of a running exec_command as it
// arrives (Tool: call id and name, Delta: the new bytes), coalesced and
// bounded by the tool; the whole output still comes in tool_call_end. Not
// written to the rollout.
const EventExecOutputDelta EventType = "exec_command_output_delta"

// EventInputQueued is a rollout-only line (never published): input that
// was queued for a thread (Input, InputID) and has not reached the model
// yet. The user_message / agent_input event of the turn that takes it
// carries the same InputID, so a resume after a crash delivers exactly the
// queued input no turn took.
const EventInputQueued EventType = "input_queued"

// EventInheritedToolCall is a rollout-only line (never published): a
// finished tool call of the session a fork was made from, copied into the
// fork's rollout (Tool: call id, name, arguments, is_error; the output
// dropped) with the source's timestamp, so that a resume of the fork gives
// its tools back what the source did before the fork (Claude's Read
// state), as a resume of the source would.
const EventInheritedToolCall EventType = "inherited_tool_call"

// EventContextCompacted says a thread's history was replaced by a summary
// (Compaction: why, and its estimated tokens before and after).
const EventContextCompacted EventType = "context_compacted"

// Compaction describes one compaction of a thread's history.
type Compaction struct {
	// Trigger is CompactAuto, CompactManual or CompactContextExceeded.
	Trigger string `json:"trigger"`
	// TokensBefore and TokensAfter estimate the history's size in tokens.
	TokensBefore int64 `json:"tokens_before"`
	TokensAfter  int64 `json:"tokens_after"`
}

// Compaction triggers.
const (
	CompactAuto            = "auto"             // model_auto_compact_token_limit reached
	CompactManual          = "manual"           // /compact, thread/compact
	CompactContextExceeded = "context_exceeded" // the model refused the request as too long
)

// Event is one thing that happened in one thread. Exactly the payload field
// that belongs to Type is set.
type Event struct {
	Type      EventType `json:"type"`
	ThreadID  ThreadID  `json:"thread_id"`
	Timestamp time.Time `json:"timestamp"`
	// Seq orders events globally (assigned by the bus).
	Seq uint64 `json:"seq,omitempty"`
	// TurnID is set on events that happen inside a turn.
	TurnID string `json:"turn_id,omitempty"`

	Thread   *ThreadInfo      `json:"thread,omitempty"`   // thread_started
	Delta    string           `json:"delta,omitempty"`    // message_delta, reasoning_delta
	Message  string           `json:"message,omitempty"`  // message, user_message, agent_input, error, warning, stream_retry
	From     ThreadID         `json:"from,omitempty"`     // agent_input: the sending agent
	Tool     *ToolCall        `json:"tool,omitempty"`     // tool_call_begin/end
	Plan     *Plan            `json:"plan,omitempty"`     // plan_updated
	Approval *ApprovalRequest `json:"approval,omitempty"` // approval_requested/resolved
	Decision ReviewDecision   `json:"decision,omitempty"` // approval_resolved
	// Resolution (approval_resolved): how the request stopped waiting.
	Resolution ApprovalResolution `json:"resolution,omitempty"`
	Status     *AgentStatus       `json:"status,omitempty"`      // status_changed; turn_completed: the outcome
	Background *BackgroundEvent   `json:"background,omitempty"`  // background_event
	Note       *string            `json:"note,omitempty"`        // thread_note_updated
	Usage      *TokenUsage        `json:"usage,omitempty"`       // token_usage (the call)
	TotalUsage *TokenUsage        `json:"total_usage,omitempty"` // token_usage (thread total)
	Inbox      *InboxChange       `json:"inbox,omitempty"`       // inbox
	Compaction *Compaction        `json:"compaction,omitempty"`  // context_compacted
	Revert     *PatchRevert       `json:"revert,omitempty"`      // patch_reverted
	// UserInput: user_input_requested/resolved; UserInputAnswer: the
	// answer of a resolved request (nil: dismissed).
	UserInput       *UserInputRequest  `json:"user_input,omitempty"`
	UserInputAnswer *UserInputResponse `json:"user_input_answer,omitempty"`
	// WebSearch: web_search (a hosted web_search_call of the reply).
	WebSearch *WebSearchCall `json:"web_search,omitempty"`
	// SubagentActivity: subagent_activity (seed 004 §5.2).
	SubagentActivity *SubagentActivityEvent `json:"subagent_activity,omitempty"`
	// Seed 001's variants, with the seed's field names:
	// subagent_created, subagent_reply_success, subagent_ended.
	SubagentID ThreadID `json:"subagent_id,omitempty"`
	// Subagents: subagents_list_response (present, maybe empty).
	Subagents *[]SubagentInfo `json:"subagents,omitempty"`
	// Notifications: inbox_response (present, maybe empty).
	Notifications *[]SubagentNotification `json:"notifications,omitempty"`
	// FinalState: subagent_ended.
	FinalState *SubagentState `json:"final_state,omitempty"`
	// Interrupted: a message cut off by an interrupt while it streamed.
	Interrupted bool   `json:"interrupted,omitempty"`
	Input       *Item  `json:"input,omitempty"`    // input_queued
	InputID     string `json:"input_id,omitempty"` // input_queued, user_message, agent_input
	// ClientIDs: turn_started, the Op.ClientID of each input the turn took
	// as it started; user_message, the input's own (input a running turn
	// takes later says it there).
	ClientIDs []string `json:"client_ids,omitempty"`
}

// ThreadInfo describes a thread when it starts (or is resumed).
type ThreadInfo struct {
	ID       ThreadID `json:"id"`
	ParentID ThreadID `json:"parent_id,omitempty"`
	// ForkedFromID is the session a fork copied.
	ForkedFromID ThreadID     `json:"forked_from_id,omitempty"`
	Depth        int          `json:"depth"`
	Source       ThreadSource `json:"source"`
	AgentType    string       `json:"agent_type,omitempty"`
	AgentName    string       `json:"agent_name,omitempty"`
	// Nickname is a sub-agent's short name, unique in the session, given
	// at spawn and kept on resume ("" for the root).
	Nickname        string         `json:"agent_nickname,omitempty"`
	Model           string         `json:"model"`
	Provider        string         `json:"provider,omitempty"`
	ReasoningEffort string         `json:"reasoning_effort,omitempty"`
	Cwd             string         `json:"cwd"`
	Sandbox         SandboxPolicy  `json:"sandbox"`
	ApprovalPolicy  ApprovalPolicy `json:"approval_policy,omitempty"`
	Note            string         `json:"note,omitempty"`
	Name            string         `json:"thread_name,omitempty"`
	// SpawnCallID is the spawn_agent call that created the thread.
	SpawnCallID string      `json:"spawn_call_id,omitempty"`
	StartedAt   time.Time   `json:"started_at"`
	RolloutPath string      `json:"rollout_path,omitempty"`
	Status      AgentStatus `json:"status"`
	// Surface names the delegation tools the thread sees (collab, task, …).
	Surface string `json:"surface,omitempty"`
	// Host is the [hosts.<name>] machine the thread's tools run on ("" =
	// this machine).
	Host string `json:"host,omitempty"`
	// HostCwd is where the thread's commands run on Host (its workspace
	// for Cwd); "" on this machine.
	HostCwd string `json:"host_cwd,omitempty"`
}

// ThreadSource says how a thread came to be.
type ThreadSource string

const (
	SourceRoot    ThreadSource = "root"
	SourceSpawned ThreadSource = "spawned"
	SourceResumed ThreadSource = "resumed"
)

// ToolCall describes a tool call at its beginning and its end.
type ToolCall struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Kind is what the tool does (set by the orchestrator from the
	// handler; derived from Name when a recorded call has none).
	Kind      ToolKind `json:"kind,omitempty"`
	Arguments string   `json:"arguments,omitempty"`
	// Set on tool_call_end:
	Output     string `json:"output,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	// CommandOutput is a command's own output (Output is what the model
	// reads, with exit code and wall time); absent for other tools.
	CommandOutput *string `json:"command_output,omitempty"`
	// ProcessID is the unified exec session a command ran in.
	ProcessID string `json:"process_id,omitempty"`
	// Summary is a one-line description for compact displays.
	Summary string `json:"summary,omitempty"`
	// AgentIDs lists the threads a collab call (spawn/wait/close/resume/send) targets.
	AgentIDs []ThreadID `json:"agent_ids,omitempty"`
	// SandboxDenied: the command failed on a refusal of its sandbox, as
	// its backend reported it.
	SandboxDenied bool `json:"sandbox_denied,omitempty"`
}

// Plan is the payload of update_plan.
type Plan struct {
	Explanation string     `json:"explanation,omitempty" jsonschema:"Optional note on why the plan changed."`
	Steps       []PlanStep `json:"plan" required:"true" jsonschema:"The steps, in order."`
}

// PlanStep is one step of a plan; Status is pending, in_progress or completed.
type PlanStep struct {
	Step   string `json:"step" required:"true" jsonschema:"What to do, in a few words."`
	Status string `json:"status" required:"true" enum:"pending,in_progress,completed"`
}

// BackgroundEvent is published by the status observer of a spawned child
// (seed 000): every status change of the child, IsFinal on final states.
type BackgroundEvent struct {
	ChildID ThreadID    `json:"child_id"`
	Status  AgentStatus `json:"status"`
	IsFinal bool        `json:"is_final"`
	Message string      `json:"message"`
	// Warning marks a background warning (e.g. a note that failed to apply).
	Warning bool `json:"warning,omitempty"`
}

// Label names a thread for people: "root", its agent_type, or
// agent_type/agent_name ("agent <id>" for an untyped sub-agent).
func (t ThreadInfo) Label() string {
	switch {
	case t.ParentID == "":
		return "root"
	case t.AgentName != "":
		return t.AgentType + "/" + t.AgentName
	case t.AgentType != "":
		return t.AgentType
	}
	return "agent " + t.ID.Short()
}
