package appserver

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/grovecli/grove/protocol"
)

// outMsg is a message the pump sends once Server.mu is released.
type outMsg struct {
	method  string
	params  any
	reqID   int64           // a server→client request when > 0
	replyTo json.RawMessage // a deferred response when set
}

var itemSeq atomic.Int64

func newItemID() string { return fmt.Sprintf("item_%d", itemSeq.Add(1)) }

func nowMs() int64 { return time.Now().UnixMilli() }

// onEvent translates one engine event into Codex notifications.
func (s *Server) onEvent(sess *session, ev protocol.Event) {
	s.mu.Lock()
	out := s.translate(sess, ev)
	s.mu.Unlock()
	for _, m := range out {
		switch {
		case m.replyTo != nil:
			_ = s.out.respond(m.replyTo, m.params)
		case m.reqID > 0:
			_ = s.out.send(outRequest{ID: m.reqID, Method: m.method, Params: m.params})
		default:
			_ = s.out.notify(m.method, m.params)
		}
	}
}

// flushHeld sends the turn/completed notifications still held when a
// session's events end.
func (s *Server) flushHeld(sess *session) {
	s.mu.Lock()
	var out []outMsg
	for _, t := range s.threads {
		if t.sess == sess && t.held != nil {
			out = append(out, s.releaseHeld(t, nil)...)
		}
	}
	s.mu.Unlock()
	for _, m := range out {
		_ = s.out.notify(m.method, m.params)
	}
}

// releaseHeld completes a finished turn; st (when known) decides whether it
// completed, was interrupted or failed.
func (s *Server) releaseHeld(t *thread, st *protocol.AgentStatus) []outMsg {
	turn := t.held
	t.held = nil
	if turn.ID == t.interruptAsked {
		turn.Status = "interrupted"
	}
	if st != nil {
		switch st.Kind {
		case protocol.StatusInterrupted:
			turn.Status = "interrupted"
		case protocol.StatusErrored:
			turn.Status = "failed"
			turn.Error = &protocol.AppTurnError{Message: st.Message}
		}
	}
	return []outMsg{{method: "turn/completed", params: map[string]any{"threadId": string(t.info.ID), "turn": turn}}}
}

// translate updates the thread state for ev and returns what to send.
// An event whose payload is missing (never from grove's engine) is
// dropped rather than dereferenced. Called with s.mu held.
func (s *Server) translate(sess *session, ev protocol.Event) []outMsg {
	msg, err := ev.Msg()
	if err != nil {
		return nil
	}
	var out []outMsg
	emit := func(method string, params any) { out = append(out, outMsg{method: method, params: params}) }
	tid := string(ev.ThreadID)
	t := s.threads[ev.ThreadID]
	if m, ok := msg.(protocol.ThreadStartedMsg); ok {
		if t == nil {
			t = newThread(sess, m.Thread)
			s.threads[ev.ThreadID] = t
		}
		emit("thread/started", map[string]any{"thread": s.appThread(m.Thread, sess.root, threadState(m.Thread.Status, false), "")})
		return out
	}
	if t == nil {
		return nil
	}
	if _, status := msg.(protocol.StatusChangedMsg); t.held != nil && !status {
		out = append(out, s.releaseHeld(t, nil)...)
	}
	turnID := ev.TurnID
	if turnID == "" {
		turnID = t.turnID
	}
	switch m := msg.(type) {
	case protocol.StatusChangedMsg:
		t.status = m.Status
		if t.held != nil {
			out = append(out, s.releaseHeld(t, &m.Status)...)
		}
		emit("thread/status/changed", map[string]any{"threadId": tid, "status": threadState(t.status, t.approvals > 0)})
	case protocol.TurnStartedMsg:
		t.busy, t.turnID, t.turnStart, t.turnItems, t.turnError = true, ev.TurnID, time.Now(), nil, ""
		started := t.turnStart.Unix()
		turn := protocol.AppTurn{ID: ev.TurnID, Items: []any{}, Status: "inProgress", StartedAt: &started}
		for _, cid := range m.ClientIDs {
			if req, ok := t.startWaiting[cid]; ok {
				out = append(out, outMsg{replyTo: req, params: protocol.AppTurnStartResponse{Turn: turn}})
				delete(t.startWaiting, cid)
			}
		}
		emit("turn/started", map[string]any{"threadId": tid, "turn": turn})
	case protocol.TurnCompletedMsg:
		out = append(out, s.closeReasoning(t, turnID)...)
		out = append(out, s.closeMessage(t, turnID, "")...)
		done := time.Now()
		completed, dur := done.Unix(), done.Sub(t.turnStart).Milliseconds()
		items := t.turnItems
		if items == nil {
			items = []any{}
		}
		started := t.turnStart.Unix()
		t.held = &protocol.AppTurn{ID: ev.TurnID, Items: items, Status: "completed", StartedAt: &started, CompletedAt: &completed, DurationMs: &dur}
		if t.turnError != "" {
			t.held.Status, t.held.Error = "failed", &protocol.AppTurnError{Message: t.turnError}
		}
		t.busy, t.turnID = len(t.startWaiting) > 0, ""
	case protocol.UserMessageMsg:
		out = append(out, s.inputItem(t, tid, turnID, m.Text)...)
	case protocol.AgentInputMsg:
		out = append(out, s.inputItem(t, tid, turnID, m.Text)...)
	case protocol.ReasoningDeltaMsg:
		if t.reasonItem == "" {
			t.reasonItem = newItemID()
			t.reasonText.Reset()
			emit("item/started", itemNote(tid, turnID, protocol.AppReasoningItem{Type: "reasoning", ID: t.reasonItem, Summary: []string{}, Content: []string{}}, "startedAtMs"))
		}
		t.reasonText.WriteString(m.Delta)
		emit("item/reasoning/summaryTextDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": t.reasonItem, "delta": m.Delta, "summaryIndex": 0})
	case protocol.MessageDeltaMsg:
		out = append(out, s.closeReasoning(t, turnID)...)
		if t.msgItem == "" {
			t.msgItem = newItemID()
			t.msgText.Reset()
			emit("item/started", itemNote(tid, turnID, protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: ""}, "startedAtMs"))
		}
		t.msgText.WriteString(m.Delta)
		emit("item/agentMessage/delta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": t.msgItem, "delta": m.Delta})
	case protocol.MessageResetMsg:
		// The stream restarted: the completed item carries the final text.
		t.msgText.Reset()
	case protocol.AgentMessageMsg:
		out = append(out, s.closeReasoning(t, turnID)...)
		if t.msgItem == "" {
			t.msgItem = newItemID()
			emit("item/started", itemNote(tid, turnID, protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: ""}, "startedAtMs"))
		}
		out = append(out, s.closeMessage(t, turnID, m.Text)...)
	case protocol.ToolCallBeginMsg:
		out = append(out, s.closeReasoning(t, turnID)...)
		out = append(out, s.closeMessage(t, turnID, "")...)
		item := toolItem(m.Call, ev.ThreadID, t.info.Cwd)
		t.tools[m.Call.CallID] = item
		emit("item/started", itemNote(tid, turnID, item, "startedAtMs"))
	case protocol.ToolCallEndMsg:
		item, ok := t.tools[m.Call.CallID]
		if !ok {
			item = toolItem(m.Call, ev.ThreadID, t.info.Cwd)
		}
		delete(t.tools, m.Call.CallID)
		wasDeclined := t.declined[m.Call.CallID]
		delete(t.declined, m.Call.CallID)
		item = finishToolItem(item, m.Call, wasDeclined)
		if collab, ok := item.(protocol.AppCollabToolCallItem); ok {
			item = s.withAgentStates(collab)
		}
		live := t.liveOutput[m.Call.CallID]
		delete(t.liveOutput, m.Call.CallID)
		if cmd, ok := item.(protocol.AppCommandExecutionItem); ok && m.Call.Output != "" && !live {
			// No live output came (an approval declined it, or no Emit): one
			// delta with the whole output at the end.
			emit("item/commandExecution/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": cmd.ID, "delta": m.Call.Output})
		}
		t.turnItems = append(t.turnItems, item)
		emit("item/completed", itemNote(tid, turnID, item, "completedAtMs"))
	case protocol.ExecOutputDeltaMsg:
		if cmd, ok := t.tools[m.Call.CallID].(protocol.AppCommandExecutionItem); ok && m.Delta != "" {
			t.liveOutput[m.Call.CallID] = true
			emit("item/commandExecution/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": cmd.ID, "delta": m.Delta})
		}
	case protocol.PlanUpdatedMsg:
		steps := []map[string]string{}
		for _, st := range m.Plan.Steps {
			steps = append(steps, map[string]string{"step": st.Step, "status": planStatus(st.Status)})
		}
		emit("turn/plan/updated", map[string]any{"threadId": tid, "turnId": turnID, "explanation": strPtr(m.Plan.Explanation), "plan": steps})
	case protocol.ApprovalRequestedMsg:
		out = append(out, s.requestApproval(sess, t, m.Request)...)
	case protocol.ApprovalResolvedMsg:
		for id, pa := range s.approvals {
			if pa.approval.ID == m.Request.ID {
				delete(s.approvals, id) // answered elsewhere (policy, shutdown)
			}
		}
		asker := s.threads[m.Request.ThreadID]
		if asker == nil {
			asker = t
		}
		if asker.approvals > 0 {
			asker.approvals--
		}
		if !m.Decision.Approved() && m.Request.CallID != "" {
			asker.declined[m.Request.CallID] = true
		}
		emit("thread/status/changed", map[string]any{"threadId": string(asker.info.ID), "status": threadState(asker.status, asker.approvals > 0)})
	case protocol.NoteUpdatedMsg:
		t.info.Note = m.Note
		emit("thread/note/updated", protocol.AppThreadNoteUpdatedNotification{ThreadID: tid, Note: strPtr(t.info.Note)})
	case protocol.TokenUsageMsg:
		emit("thread/tokenUsage/updated", map[string]any{"threadId": tid, "turnId": turnID,
			"tokenUsage": map[string]any{"last": protocol.NewAppTokenUsage(m.Usage), "total": protocol.NewAppTokenUsage(m.Total)}})
	case protocol.ErrorMsg:
		t.turnError = m.Text
		emit("error", map[string]any{"threadId": tid, "turnId": turnID, "willRetry": false, "error": protocol.AppTurnError{Message: m.Text}})
	case protocol.StreamRetryMsg:
		emit("error", map[string]any{"threadId": tid, "turnId": turnID, "willRetry": true, "error": protocol.AppTurnError{Message: m.Text}})
	case protocol.WarningMsg:
		emit("warning", map[string]any{"threadId": tid, "message": m.Text})
	case protocol.BackgroundMsg:
		if m.Event.Warning {
			emit("warning", map[string]any{"threadId": tid, "message": m.Event.Message})
		}
	case protocol.ThreadClosedMsg:
		emit("thread/closed", map[string]any{"threadId": tid})
	case protocol.ContextCompactedMsg:
		emit("thread/compacted", compactedNote(tid, ev.TurnID))
	}
	return out
}

// inputItem records input that joined the turn (the user's or another
// agent's) as a userMessage item.
func (s *Server) inputItem(t *thread, tid, turnID, text string) []outMsg {
	item := userMessageItem(newItemID(), text, nil)
	t.turnItems = append(t.turnItems, item)
	return []outMsg{
		{method: "item/started", params: itemNote(tid, turnID, item, "startedAtMs")},
		{method: "item/completed", params: itemNote(tid, turnID, item, "completedAtMs")},
	}
}

// closeMessage completes the open agentMessage item, if any.
func (s *Server) closeMessage(t *thread, turnID, final string) []outMsg {
	if t.msgItem == "" {
		return nil
	}
	text := final
	if text == "" {
		text = t.msgText.String()
	}
	item := protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: text}
	t.msgItem = ""
	t.msgText.Reset()
	t.turnItems = append(t.turnItems, item)
	return []outMsg{{method: "item/completed", params: itemNote(string(t.info.ID), turnID, item, "completedAtMs")}}
}

// withAgentStates fills a collab item's agentsStates from the receivers'
// current statuses (Called with s.mu held).
func (s *Server) withAgentStates(it protocol.AppCollabToolCallItem) protocol.AppCollabToolCallItem {
	states := map[string]protocol.AppCollabState{}
	for _, id := range it.ReceiverThreadIDs {
		r := s.threads[protocol.ThreadID(id)]
		if r == nil {
			states[id] = protocol.AppCollabState{Status: "notFound"}
			continue
		}
		st := protocol.AppCollabState{Status: collabStatus(r.status.Kind)}
		if r.status.HasMessage {
			msg := r.status.Message
			st.Message = &msg
		}
		states[id] = st
	}
	it.AgentsStates = states
	return it
}

// collabStatus names an agent status in Codex's CollabAgentStatus.
func collabStatus(k protocol.StatusKind) string {
	switch k {
	case protocol.StatusPendingInit:
		return "pendingInit"
	case protocol.StatusRunning:
		return "running"
	case protocol.StatusInterrupted:
		return "interrupted"
	case protocol.StatusCompleted:
		return "completed"
	case protocol.StatusErrored:
		return "errored"
	case protocol.StatusShutdown:
		return "shutdown"
	}
	return "notFound"
}

// closeReasoning completes the open reasoning item, if any.
func (s *Server) closeReasoning(t *thread, turnID string) []outMsg {
	if t.reasonItem == "" {
		return nil
	}
	item := protocol.AppReasoningItem{Type: "reasoning", ID: t.reasonItem, Summary: []string{t.reasonText.String()}, Content: []string{}}
	t.reasonItem = ""
	t.reasonText.Reset()
	t.turnItems = append(t.turnItems, item)
	return []outMsg{{method: "item/completed", params: itemNote(string(t.info.ID), turnID, item, "completedAtMs")}}
}

// requestApproval sends an approval request to the client, naming the
// thread that asks.
func (s *Server) requestApproval(sess *session, t *thread, a protocol.ApprovalRequest) []outMsg {
	asker := s.threads[a.ThreadID]
	if asker == nil {
		asker = t
	}
	s.nextReqID++
	id := s.nextReqID
	s.approvals[id] = &pendingApproval{sess: sess, approval: a}
	asker.approvals++
	turnID := asker.turnID
	itemID := a.CallID
	if itemID == "" {
		itemID = a.ID
	}
	approvalID := a.ID
	var out []outMsg
	out = append(out, outMsg{method: "thread/status/changed", params: map[string]any{"threadId": string(asker.info.ID), "status": threadState(asker.status, true)}})
	switch a.Kind {
	case protocol.ApprovalPatch:
		reason := a.Reason
		if reason == "" && len(a.Files) > 0 {
			reason = fmt.Sprintf("apply a patch to %d file(s)", len(a.Files))
		}
		out = append(out, outMsg{reqID: id, method: "item/fileChange/requestApproval", params: protocol.AppFileChangeApprovalParams{
			ThreadID: string(a.ThreadID), TurnID: turnID, ItemID: itemID, Reason: strPtr(reason), StartedAtMs: nowMs(),
		}})
	default:
		// exec, and grove's working_directory approval for a sub-agent
		// (no Codex equivalent: a command approval naming the directory).
		cmd, cwd, reason := a.Command, a.Cwd, a.Reason
		if a.Kind == protocol.ApprovalWorkingDir {
			cmd, cwd = "", a.Dir
			if reason == "" {
				reason = fmt.Sprintf("spawn a sub-agent in working directory %s", a.Dir)
			}
		}
		out = append(out, outMsg{reqID: id, method: "item/commandExecution/requestApproval", params: protocol.AppCommandApprovalParams{
			ThreadID: string(a.ThreadID), TurnID: turnID, ItemID: itemID, ApprovalID: &approvalID,
			Command: strPtr(cmd), Cwd: strPtr(cwd), Reason: strPtr(reason), StartedAtMs: nowMs(),
		}})
	}
	return out
}

func itemNote(threadID, turnID string, item any, at string) map[string]any {
	return map[string]any{"threadId": threadID, "turnId": turnID, "item": item, at: nowMs()}
}

func planStatus(s string) string {
	switch s {
	case "in_progress":
		return "inProgress"
	case "completed":
		return "completed"
	}
	return "pending"
}
