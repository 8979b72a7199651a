package protocol

// eventCodec is one event kind's two directions between its typed message and the envelope:
// the one registry that NewEvent and Event.Msg both read, so that a kind is added in one place.
type eventCodec struct {
	// read builds the message from ev, or names the payload field ev lacks.
	read func(ev Event) (EventMsg, string)
	// write sets m's fields on the envelope.
	write func(m EventMsg, ev *Event)
}

// codec types a kind's pair of functions.
func codec[M EventMsg](read func(ev Event) (M, string), write func(m M, ev *Event)) eventCodec {
	return eventCodec{
		read: func(ev Event) (EventMsg, string) {
			m, missing := read(ev)
			if missing != "" {
				return nil, missing
			}
			return m, ""
		},
		write: func(m EventMsg, ev *Event) { write(m.(M), ev) },
	}
}

// needs reads a required payload pointer: its value, or the field's name when it is absent.
func needs[T any](p *T, field string) (T, string) {
	if p == nil {
		var zero T
		return zero, field
	}
	return *p, ""
}

// noPayload is the codec of a kind that carries nothing but its type.
func noPayload[M EventMsg](m M) eventCodec {
	return codec(func(Event) (M, string) { return m, "" }, func(M, *Event) {})
}

func textCodec[M interface {
	EventMsg
	~struct{ Text string }
}]() eventCodec {
	return codec(func(ev Event) (M, string) { return M{Text: ev.Message}, "" },
		func(m M, ev *Event) { ev.Message = struct{ Text string }(m).Text })
}

func toolCallCodec[M interface {
	EventMsg
	~struct{ Call ToolCall }
}]() eventCodec {
	return codec(func(ev Event) (M, string) {
		call, missing := needs(ev.Tool, "tool")
		return M{Call: call}, missing
	}, func(m M, ev *Event) { c := struct{ Call ToolCall }(m).Call; ev.Tool = &c })
}

func deltaCodec[M interface {
	EventMsg
	~struct{ Delta string }
}]() eventCodec {
	return codec(func(ev Event) (M, string) { return M{Delta: ev.Delta}, "" },
		func(m M, ev *Event) { ev.Delta = struct{ Delta string }(m).Delta })
}

var eventCodecs = map[EventType]eventCodec{
	EventThreadStarted: codec(func(ev Event) (ThreadStartedMsg, string) {
		t, missing := needs(ev.Thread, "thread")
		return ThreadStartedMsg{Thread: t}, missing
	}, func(m ThreadStartedMsg, ev *Event) { ev.Thread = &m.Thread }),
	EventThreadClosed: noPayload(ThreadClosedMsg{}),
	EventTurnStarted: codec(func(ev Event) (TurnStartedMsg, string) { return TurnStartedMsg{ClientIDs: ev.ClientIDs}, "" },
		func(m TurnStartedMsg, ev *Event) { ev.ClientIDs = m.ClientIDs }),
	EventTurnCompleted: codec(func(ev Event) (TurnCompletedMsg, string) {
		return TurnCompletedMsg{LastMessage: ev.Message, Outcome: ev.Status}, ""
	}, func(m TurnCompletedMsg, ev *Event) { ev.Message, ev.Status = m.LastMessage, m.Outcome }),
	EventMessageDelta:   deltaCodec[MessageDeltaMsg](),
	EventMessageReset:   noPayload(MessageResetMsg{}),
	EventReasoningDelta: deltaCodec[ReasoningDeltaMsg](),
	EventMessage: codec(func(ev Event) (AgentMessageMsg, string) {
		return AgentMessageMsg{Text: ev.Message, Interrupted: ev.Interrupted}, ""
	}, func(m AgentMessageMsg, ev *Event) { ev.Message, ev.Interrupted = m.Text, m.Interrupted }),
	EventUserMessage: codec(func(ev Event) (UserMessageMsg, string) {
		return UserMessageMsg{Text: ev.Message, InputID: ev.InputID, ClientIDs: ev.ClientIDs}, ""
	}, func(m UserMessageMsg, ev *Event) {
		ev.Message, ev.InputID, ev.ClientIDs = m.Text, m.InputID, m.ClientIDs
	}),
	EventAgentInput: codec(func(ev Event) (AgentInputMsg, string) {
		return AgentInputMsg{Text: ev.Message, From: ev.From, InputID: ev.InputID, ClientIDs: ev.ClientIDs}, ""
	}, func(m AgentInputMsg, ev *Event) {
		ev.Message, ev.From, ev.InputID, ev.ClientIDs = m.Text, m.From, m.InputID, m.ClientIDs
	}),
	EventToolCallBegin: toolCallCodec[ToolCallBeginMsg](),
	EventToolCallEnd:   toolCallCodec[ToolCallEndMsg](),
	EventToolProgress: codec(func(ev Event) (ToolProgressMsg, string) {
		call, missing := needs(ev.Tool, "tool")
		return ToolProgressMsg{Call: call, Text: ev.Message}, missing
	}, func(m ToolProgressMsg, ev *Event) { ev.Tool, ev.Message = &m.Call, m.Text }),
	EventPlanUpdated: codec(func(ev Event) (PlanUpdatedMsg, string) {
		p, missing := needs(ev.Plan, "plan")
		return PlanUpdatedMsg{Plan: p}, missing
	}, func(m PlanUpdatedMsg, ev *Event) { ev.Plan = &m.Plan }),
	EventApprovalRequested: codec(func(ev Event) (ApprovalRequestedMsg, string) {
		r, missing := needs(ev.Approval, "approval")
		return ApprovalRequestedMsg{Request: r}, missing
	}, func(m ApprovalRequestedMsg, ev *Event) { ev.Approval = &m.Request }),
	EventApprovalResolved: codec(func(ev Event) (ApprovalResolvedMsg, string) {
		r, missing := needs(ev.Approval, "approval")
		return ApprovalResolvedMsg{Request: r, Decision: ev.Decision, Resolution: ev.Resolution}, missing
	}, func(m ApprovalResolvedMsg, ev *Event) {
		ev.Approval, ev.Decision, ev.Resolution = &m.Request, m.Decision, m.Resolution
	}),
	EventStatusChanged: codec(func(ev Event) (StatusChangedMsg, string) {
		s, missing := needs(ev.Status, "status")
		return StatusChangedMsg{Status: s}, missing
	}, func(m StatusChangedMsg, ev *Event) { ev.Status = &m.Status }),
	EventBackground: codec(func(ev Event) (BackgroundMsg, string) {
		b, missing := needs(ev.Background, "background")
		return BackgroundMsg{Event: b}, missing
	}, func(m BackgroundMsg, ev *Event) { ev.Background = &m.Event }),
	EventNoteUpdated: codec(func(ev Event) (NoteUpdatedMsg, string) {
		n, missing := needs(ev.Note, "note")
		return NoteUpdatedMsg{Note: n}, missing
	}, func(m NoteUpdatedMsg, ev *Event) { ev.Note = &m.Note }),
	EventTokenUsage: codec(func(ev Event) (TokenUsageMsg, string) {
		u, missing := needs(ev.Usage, "usage")
		m := TokenUsageMsg{Usage: u}
		if ev.TotalUsage != nil {
			m.Total = *ev.TotalUsage
		}
		return m, missing
	}, func(m TokenUsageMsg, ev *Event) { ev.Usage, ev.TotalUsage = &m.Usage, &m.Total }),
	EventError:            textCodec[ErrorMsg](),
	EventWarning:          textCodec[WarningMsg](),
	EventStreamRetry:      textCodec[StreamRetryMsg](),
	EventShutdownComplete: noPayload(ShutdownCompleteMsg{}),
	EventInbox: codec(func(ev Event) (InboxMsg, string) {
		c, missing := needs(ev.Inbox, "inbox")
		return InboxMsg{Change: c}, missing
	}, func(m InboxMsg, ev *Event) { ev.Inbox = &m.Change }),
	EventSubagentActivity: codec(func(ev Event) (SubagentActivityMsg, string) {
		a, missing := needs(ev.SubagentActivity, "subagent_activity")
		return SubagentActivityMsg{Activity: a}, missing
	}, func(m SubagentActivityMsg, ev *Event) { ev.SubagentActivity = &m.Activity }),
	EventSubagentCreated: codec(func(ev Event) (SubagentCreatedMsg, string) {
		return SubagentCreatedMsg{SubagentID: ev.SubagentID}, missingID(ev)
	}, func(m SubagentCreatedMsg, ev *Event) { ev.SubagentID = m.SubagentID }),
	EventSubagentReplySuccess: codec(func(ev Event) (SubagentReplySuccessMsg, string) {
		return SubagentReplySuccessMsg{SubagentID: ev.SubagentID}, missingID(ev)
	}, func(m SubagentReplySuccessMsg, ev *Event) { ev.SubagentID = m.SubagentID }),
	EventSubagentEnded: codec(func(ev Event) (SubagentEndedMsg, string) {
		if missing := missingID(ev); missing != "" {
			return SubagentEndedMsg{}, missing
		}
		f, missing := needs(ev.FinalState, "final_state")
		return SubagentEndedMsg{SubagentID: ev.SubagentID, FinalState: f}, missing
	}, func(m SubagentEndedMsg, ev *Event) { ev.SubagentID, ev.FinalState = m.SubagentID, &m.FinalState }),
	EventSubagentsListResponse: codec(func(ev Event) (SubagentsListResponseMsg, string) {
		l, missing := needs(ev.Subagents, "subagents")
		return SubagentsListResponseMsg{Subagents: l}, missing
	}, func(m SubagentsListResponseMsg, ev *Event) {
		list := append([]SubagentInfo{}, m.Subagents...)
		ev.Subagents = &list
	}),
	EventInboxResponse: codec(func(ev Event) (InboxResponseMsg, string) {
		l, missing := needs(ev.Notifications, "notifications")
		return InboxResponseMsg{Notifications: l}, missing
	}, func(m InboxResponseMsg, ev *Event) {
		list := append([]SubagentNotification{}, m.Notifications...)
		ev.Notifications = &list
	}),
	EventExecOutputDelta: codec(func(ev Event) (ExecOutputDeltaMsg, string) {
		call, missing := needs(ev.Tool, "tool")
		return ExecOutputDeltaMsg{Call: call, Delta: ev.Delta}, missing
	}, func(m ExecOutputDeltaMsg, ev *Event) { ev.Tool, ev.Delta = &m.Call, m.Delta }),
	EventContextCompacted: codec(func(ev Event) (ContextCompactedMsg, string) {
		c, missing := needs(ev.Compaction, "compaction")
		return ContextCompactedMsg{Compaction: c}, missing
	}, func(m ContextCompactedMsg, ev *Event) { ev.Compaction = &m.Compaction }),
	EventPatchReverted: codec(func(ev Event) (PatchRevertedMsg, string) {
		r, missing := needs(ev.Revert, "revert")
		return PatchRevertedMsg{Revert: r}, missing
	}, func(m PatchRevertedMsg, ev *Event) { ev.Revert = &m.Revert }),
	EventUserInputRequested: codec(func(ev Event) (UserInputRequestedMsg, string) {
		r, missing := needs(ev.UserInput, "user_input")
		return UserInputRequestedMsg{Request: r}, missing
	}, func(m UserInputRequestedMsg, ev *Event) { ev.UserInput = &m.Request }),
	EventUserInputResolved: codec(func(ev Event) (UserInputResolvedMsg, string) {
		r, missing := needs(ev.UserInput, "user_input")
		return UserInputResolvedMsg{Request: r, Response: ev.UserInputAnswer}, missing
	}, func(m UserInputResolvedMsg, ev *Event) { ev.UserInput, ev.UserInputAnswer = &m.Request, m.Response }),
	EventWebSearch: codec(func(ev Event) (WebSearchMsg, string) {
		c, missing := needs(ev.WebSearch, "web_search")
		return WebSearchMsg{Call: c}, missing
	}, func(m WebSearchMsg, ev *Event) { ev.WebSearch = &m.Call }),
}

// missingID names seed 001's subagent_id when an event lacks it.
func missingID(ev Event) string {
	if ev.SubagentID == "" {
		return "subagent_id"
	}
	return ""
}
