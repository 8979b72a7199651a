package protocol

import "fmt"

// EventMsg is an event's payload as a Go type: one type per event kind.
// The set is sealed (the marker method is unexported), so a type switch
// over the types below covers every kind, and a consumer never
// dereferences a payload pointer that the event does not carry.
//
// Event stays the envelope on the wire (`grove exec --json`, rollouts,
// the app-server): NewEvent builds it from a message, Event.Msg reads the
// message back, and the JSON of both is the one Event always had.
type EventMsg interface {
	// Kind is the event's wire type.
	Kind() EventType
	isEventMsg()
}

// The event messages, one per EventType.
type (
	ThreadStartedMsg struct{ Thread ThreadInfo }
	ThreadClosedMsg  struct{}
	// TurnStartedMsg: ClientIDs are the Op.ClientID of each input the turn
	// took as it started.
	TurnStartedMsg struct{ ClientIDs []string }
	// TurnCompletedMsg: Outcome is how the turn ended (completed, errored
	// or interrupted); nil in a rollout an older grove wrote. Every front
	// end reads a turn's failure from here (Failure), one mapping for all.
	TurnCompletedMsg struct {
		LastMessage string
		Outcome     *AgentStatus
	}
	MessageDeltaMsg   struct{ Delta string }
	MessageResetMsg   struct{}
	ReasoningDeltaMsg struct{ Delta string }
	// AgentMessageMsg: Interrupted marks a reply cut off while it streamed.
	AgentMessageMsg struct {
		Text        string
		Interrupted bool
	}
	// UserMessageMsg: InputID names the queued input the turn took.
	UserMessageMsg struct {
		Text      string
		InputID   string
		ClientIDs []string
	}
	AgentInputMsg struct {
		Text      string
		From      ThreadID
		InputID   string
		ClientIDs []string
	}
	ToolCallBeginMsg struct{ Call ToolCall }
	ToolCallEndMsg   struct{ Call ToolCall }
	ToolProgressMsg  struct {
		Call ToolCall
		Text string
	}
	PlanUpdatedMsg       struct{ Plan Plan }
	ApprovalRequestedMsg struct{ Request ApprovalRequest }
	ApprovalResolvedMsg  struct {
		Request  ApprovalRequest
		Decision ReviewDecision
		// Resolution: answered, decided by policy, or cancelled unanswered.
		Resolution ApprovalResolution
	}
	StatusChangedMsg    struct{ Status AgentStatus }
	BackgroundMsg       struct{ Event BackgroundEvent }
	NoteUpdatedMsg      struct{ Note string }
	TokenUsageMsg       struct{ Usage, Total TokenUsage }
	ErrorMsg            struct{ Text string }
	WarningMsg          struct{ Text string }
	StreamRetryMsg      struct{ Text string }
	ShutdownCompleteMsg struct{}
	InboxMsg            struct{ Change InboxChange }
	// ExecOutputDeltaMsg is output of a running exec_command (Call: its id
	// and name); published, never written to the rollout.
	ExecOutputDeltaMsg struct {
		Call  ToolCall
		Delta string
	}
	// ContextCompactedMsg: the thread's history now starts from a summary.
	ContextCompactedMsg struct{ Compaction Compaction }
)

func (ThreadStartedMsg) Kind() EventType     { return EventThreadStarted }
func (ThreadClosedMsg) Kind() EventType      { return EventThreadClosed }
func (TurnStartedMsg) Kind() EventType       { return EventTurnStarted }
func (TurnCompletedMsg) Kind() EventType     { return EventTurnCompleted }
func (MessageDeltaMsg) Kind() EventType      { return EventMessageDelta }
func (MessageResetMsg) Kind() EventType      { return EventMessageReset }
func (ReasoningDeltaMsg) Kind() EventType    { return EventReasoningDelta }
func (AgentMessageMsg) Kind() EventType      { return EventMessage }
func (UserMessageMsg) Kind() EventType       { return EventUserMessage }
func (AgentInputMsg) Kind() EventType        { return EventAgentInput }
func (ToolCallBeginMsg) Kind() EventType     { return EventToolCallBegin }
func (ToolCallEndMsg) Kind() EventType       { return EventToolCallEnd }
func (ToolProgressMsg) Kind() EventType      { return EventToolProgress }
func (PlanUpdatedMsg) Kind() EventType       { return EventPlanUpdated }
func (ApprovalRequestedMsg) Kind() EventType { return EventApprovalRequested }
func (ApprovalResolvedMsg) Kind() EventType  { return EventApprovalResolved }
func (StatusChangedMsg) Kind() EventType     { return EventStatusChanged }
func (BackgroundMsg) Kind() EventType        { return EventBackground }
func (NoteUpdatedMsg) Kind() EventType       { return EventNoteUpdated }
func (TokenUsageMsg) Kind() EventType        { return EventTokenUsage }
func (ErrorMsg) Kind() EventType             { return EventError }
func (WarningMsg) Kind() EventType           { return EventWarning }
func (StreamRetryMsg) Kind() EventType       { return EventStreamRetry }
func (ShutdownCompleteMsg) Kind() EventType  { return EventShutdownComplete }
func (InboxMsg) Kind() EventType             { return EventInbox }
func (ExecOutputDeltaMsg) Kind() EventType   { return EventExecOutputDelta }
func (ContextCompactedMsg) Kind() EventType  { return EventContextCompacted }

func (ThreadStartedMsg) isEventMsg()     {}
func (ThreadClosedMsg) isEventMsg()      {}
func (TurnStartedMsg) isEventMsg()       {}
func (TurnCompletedMsg) isEventMsg()     {}
func (MessageDeltaMsg) isEventMsg()      {}
func (MessageResetMsg) isEventMsg()      {}
func (ReasoningDeltaMsg) isEventMsg()    {}
func (AgentMessageMsg) isEventMsg()      {}
func (UserMessageMsg) isEventMsg()       {}
func (AgentInputMsg) isEventMsg()        {}
func (ToolCallBeginMsg) isEventMsg()     {}
func (ToolCallEndMsg) isEventMsg()       {}
func (ToolProgressMsg) isEventMsg()      {}
func (PlanUpdatedMsg) isEventMsg()       {}
func (ApprovalRequestedMsg) isEventMsg() {}
func (ApprovalResolvedMsg) isEventMsg()  {}
func (StatusChangedMsg) isEventMsg()     {}
func (BackgroundMsg) isEventMsg()        {}
func (NoteUpdatedMsg) isEventMsg()       {}
func (TokenUsageMsg) isEventMsg()        {}
func (ErrorMsg) isEventMsg()             {}
func (WarningMsg) isEventMsg()           {}
func (StreamRetryMsg) isEventMsg()       {}
func (ShutdownCompleteMsg) isEventMsg()  {}
func (InboxMsg) isEventMsg()             {}
func (ExecOutputDeltaMsg) isEventMsg()   {}
func (ContextCompactedMsg) isEventMsg()  {}

// NewEvent wraps a message in its envelope for thread (turnID may be
// empty); the bus stamps Seq and Timestamp.
func NewEvent(thread ThreadID, turnID string, m EventMsg) Event {
	ev := Event{Type: m.Kind(), ThreadID: thread, TurnID: turnID}
	if c, ok := eventCodecs[ev.Type]; ok {
		c.write(m, &ev)
	}
	return ev
}

// MalformedEventError is an event whose type needs a payload it lacks (a
// hand-edited or truncated rollout line, a peer's bad frame), or whose
// type grove does not know.
type MalformedEventError struct {
	Type    EventType
	Thread  ThreadID
	Missing string // the absent payload field; "" for an unknown type
}

func (e *MalformedEventError) Error() string {
	if e.Missing == "" {
		return fmt.Sprintf("event of unknown type %q (thread %s)", e.Type, e.Thread)
	}
	return fmt.Sprintf("event %s of thread %s has no %s", e.Type, e.Thread, e.Missing)
}

// Msg returns the event's typed message. An event whose payload is missing
// or whose type is unknown is an error (*MalformedEventError), never a nil
// dereference.
func (ev Event) Msg() (EventMsg, error) {
	c, ok := eventCodecs[ev.Type]
	if !ok {
		return nil, &MalformedEventError{Type: ev.Type, Thread: ev.ThreadID}
	}
	m, missing := c.read(ev)
	if missing != "" {
		return nil, &MalformedEventError{Type: ev.Type, Thread: ev.ThreadID, Missing: missing}
	}
	return m, nil
}

// Failure reports a turn that ended without completing (an error, a
// stopped record, an interrupt) and what to tell the user about it.
func (m TurnCompletedMsg) Failure() (string, bool) {
	if m.Outcome == nil {
		return "", false
	}
	switch m.Outcome.Kind {
	case StatusErrored:
		if m.Outcome.Message != "" {
			return m.Outcome.Message, true
		}
		return "the turn ended with an error", true
	case StatusInterrupted:
		return "the turn was interrupted", true
	case StatusCompleted:
		return "", false
	}
	return "the turn ended " + string(m.Outcome.Kind), true
}
