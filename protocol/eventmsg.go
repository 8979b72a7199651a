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
	switch m := m.(type) {
	case ThreadStartedMsg:
		ev.Thread = &m.Thread
	case TurnCompletedMsg:
		ev.Message, ev.Status = m.LastMessage, m.Outcome
	case MessageDeltaMsg:
		ev.Delta = m.Delta
	case ReasoningDeltaMsg:
		ev.Delta = m.Delta
	case TurnStartedMsg:
		ev.ClientIDs = m.ClientIDs
	case AgentMessageMsg:
		ev.Message, ev.Interrupted = m.Text, m.Interrupted
	case UserMessageMsg:
		ev.Message, ev.InputID, ev.ClientIDs = m.Text, m.InputID, m.ClientIDs
	case AgentInputMsg:
		ev.Message, ev.From, ev.InputID, ev.ClientIDs = m.Text, m.From, m.InputID, m.ClientIDs
	case ToolCallBeginMsg:
		ev.Tool = &m.Call
	case ToolCallEndMsg:
		ev.Tool = &m.Call
	case ToolProgressMsg:
		ev.Tool, ev.Message = &m.Call, m.Text
	case PlanUpdatedMsg:
		ev.Plan = &m.Plan
	case ApprovalRequestedMsg:
		ev.Approval = &m.Request
	case ApprovalResolvedMsg:
		ev.Approval, ev.Decision = &m.Request, m.Decision
	case StatusChangedMsg:
		ev.Status = &m.Status
	case BackgroundMsg:
		ev.Background = &m.Event
	case NoteUpdatedMsg:
		ev.Note = &m.Note
	case TokenUsageMsg:
		ev.Usage, ev.TotalUsage = &m.Usage, &m.Total
	case ErrorMsg:
		ev.Message = m.Text
	case WarningMsg:
		ev.Message = m.Text
	case StreamRetryMsg:
		ev.Message = m.Text
	case InboxMsg:
		ev.Inbox = &m.Change
	case ExecOutputDeltaMsg:
		ev.Tool, ev.Delta = &m.Call, m.Delta
	case ContextCompactedMsg:
		ev.Compaction = &m.Compaction
	case SubagentActivityMsg:
		ev.SubagentActivity = &m.Activity
	case SubagentCreatedMsg:
		ev.SubagentID = m.SubagentID
	case SubagentReplySuccessMsg:
		ev.SubagentID = m.SubagentID
	case SubagentEndedMsg:
		ev.SubagentID, ev.FinalState = m.SubagentID, &m.FinalState
	case SubagentsListResponseMsg:
		list := append([]SubagentInfo{}, m.Subagents...)
		ev.Subagents = &list
	case InboxResponseMsg:
		list := append([]SubagentNotification{}, m.Notifications...)
		ev.Notifications = &list
	case PatchRevertedMsg:
		ev.Revert = &m.Revert
	case UserInputRequestedMsg:
		ev.UserInput = &m.Request
	case UserInputResolvedMsg:
		ev.UserInput, ev.UserInputAnswer = &m.Request, m.Response
	case WebSearchMsg:
		ev.WebSearch = &m.Call
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
	missing := func(field string) (EventMsg, error) {
		return nil, &MalformedEventError{Type: ev.Type, Thread: ev.ThreadID, Missing: field}
	}
	switch ev.Type {
	case EventThreadStarted:
		if ev.Thread == nil {
			return missing("thread")
		}
		return ThreadStartedMsg{Thread: *ev.Thread}, nil
	case EventThreadClosed:
		return ThreadClosedMsg{}, nil
	case EventTurnStarted:
		return TurnStartedMsg{ClientIDs: ev.ClientIDs}, nil
	case EventTurnCompleted:
		return TurnCompletedMsg{LastMessage: ev.Message, Outcome: ev.Status}, nil
	case EventMessageDelta:
		return MessageDeltaMsg{Delta: ev.Delta}, nil
	case EventMessageReset:
		return MessageResetMsg{}, nil
	case EventReasoningDelta:
		return ReasoningDeltaMsg{Delta: ev.Delta}, nil
	case EventMessage:
		return AgentMessageMsg{Text: ev.Message, Interrupted: ev.Interrupted}, nil
	case EventUserMessage:
		return UserMessageMsg{Text: ev.Message, InputID: ev.InputID, ClientIDs: ev.ClientIDs}, nil
	case EventAgentInput:
		return AgentInputMsg{Text: ev.Message, From: ev.From, InputID: ev.InputID, ClientIDs: ev.ClientIDs}, nil
	case EventToolCallBegin, EventToolCallEnd, EventToolProgress:
		if ev.Tool == nil {
			return missing("tool")
		}
		switch ev.Type {
		case EventToolCallBegin:
			return ToolCallBeginMsg{Call: *ev.Tool}, nil
		case EventToolCallEnd:
			return ToolCallEndMsg{Call: *ev.Tool}, nil
		}
		return ToolProgressMsg{Call: *ev.Tool, Text: ev.Message}, nil
	case EventPlanUpdated:
		if ev.Plan == nil {
			return missing("plan")
		}
		return PlanUpdatedMsg{Plan: *ev.Plan}, nil
	case EventApprovalRequested:
		if ev.Approval == nil {
			return missing("approval")
		}
		return ApprovalRequestedMsg{Request: *ev.Approval}, nil
	case EventApprovalResolved:
		if ev.Approval == nil {
			return missing("approval")
		}
		return ApprovalResolvedMsg{Request: *ev.Approval, Decision: ev.Decision}, nil
	case EventStatusChanged:
		if ev.Status == nil {
			return missing("status")
		}
		return StatusChangedMsg{Status: *ev.Status}, nil
	case EventBackground:
		if ev.Background == nil {
			return missing("background")
		}
		return BackgroundMsg{Event: *ev.Background}, nil
	case EventNoteUpdated:
		if ev.Note == nil {
			return missing("note")
		}
		return NoteUpdatedMsg{Note: *ev.Note}, nil
	case EventTokenUsage:
		if ev.Usage == nil {
			return missing("usage")
		}
		m := TokenUsageMsg{Usage: *ev.Usage}
		if ev.TotalUsage != nil {
			m.Total = *ev.TotalUsage
		}
		return m, nil
	case EventError:
		return ErrorMsg{Text: ev.Message}, nil
	case EventWarning:
		return WarningMsg{Text: ev.Message}, nil
	case EventStreamRetry:
		return StreamRetryMsg{Text: ev.Message}, nil
	case EventShutdownComplete:
		return ShutdownCompleteMsg{}, nil
	case EventInbox:
		if ev.Inbox == nil {
			return missing("inbox")
		}
		return InboxMsg{Change: *ev.Inbox}, nil
	case EventSubagentActivity:
		if ev.SubagentActivity == nil {
			return missing("subagent_activity")
		}
		return SubagentActivityMsg{Activity: *ev.SubagentActivity}, nil
	case EventSubagentCreated, EventSubagentReplySuccess, EventSubagentEnded, EventSubagentsListResponse, EventInboxResponse:
		return ev.inboxReplyMsg()
	case EventExecOutputDelta:
		if ev.Tool == nil {
			return missing("tool")
		}
		return ExecOutputDeltaMsg{Call: *ev.Tool, Delta: ev.Delta}, nil
	case EventContextCompacted:
		if ev.Compaction == nil {
			return missing("compaction")
		}
		return ContextCompactedMsg{Compaction: *ev.Compaction}, nil
	case EventPatchReverted:
		if ev.Revert == nil {
			return missing("revert")
		}
		return PatchRevertedMsg{Revert: *ev.Revert}, nil
	case EventUserInputRequested, EventUserInputResolved:
		if ev.UserInput == nil {
			return missing("user_input")
		}
		if ev.Type == EventUserInputRequested {
			return UserInputRequestedMsg{Request: *ev.UserInput}, nil
		}
		return UserInputResolvedMsg{Request: *ev.UserInput, Response: ev.UserInputAnswer}, nil
	case EventWebSearch:
		if ev.WebSearch == nil {
			return missing("web_search")
		}
		return WebSearchMsg{Call: *ev.WebSearch}, nil
	}
	return nil, &MalformedEventError{Type: ev.Type, Thread: ev.ThreadID}
}

// inboxReplyMsg reads one of seed 001's variants (Msg's cases for them).
func (ev Event) inboxReplyMsg() (EventMsg, error) {
	missing := func(field string) (EventMsg, error) {
		return nil, &MalformedEventError{Type: ev.Type, Thread: ev.ThreadID, Missing: field}
	}
	switch ev.Type {
	case EventSubagentsListResponse:
		if ev.Subagents == nil {
			return missing("subagents")
		}
		return SubagentsListResponseMsg{Subagents: *ev.Subagents}, nil
	case EventInboxResponse:
		if ev.Notifications == nil {
			return missing("notifications")
		}
		return InboxResponseMsg{Notifications: *ev.Notifications}, nil
	}
	if ev.SubagentID == "" {
		return missing("subagent_id")
	}
	switch ev.Type {
	case EventSubagentCreated:
		return SubagentCreatedMsg{SubagentID: ev.SubagentID}, nil
	case EventSubagentReplySuccess:
		return SubagentReplySuccessMsg{SubagentID: ev.SubagentID}, nil
	}
	if ev.FinalState == nil {
		return missing("final_state")
	}
	return SubagentEndedMsg{SubagentID: ev.SubagentID, FinalState: *ev.FinalState}, nil
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
