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
// Called with s.mu held.
func (s *Server) translate(sess *session, ev protocol.Event) []outMsg {
	var out []outMsg
	emit := func(method string, params any) { out = append(out, outMsg{method: method, params: params}) }
	tid := string(ev.ThreadID)
	t := s.threads[ev.ThreadID]
	if ev.Type == protocol.EventThreadStarted && ev.Thread != nil {
		if t == nil {
			t = newThread(sess, *ev.Thread)
			s.threads[ev.ThreadID] = t
		}
		emit("thread/started", map[string]any{"thread": s.appThread(*ev.Thread, sess.root, threadState(ev.Thread.Status, false), "")})
		return out
	}
	if t == nil {
		return nil
	}
	if t.held != nil && ev.Type != protocol.EventStatusChanged {
		out = append(out, s.releaseHeld(t, nil)...)
	}
	turnID := ev.TurnID
	if turnID == "" {
		turnID = t.turnID
	}
	switch ev.Type {
	case protocol.EventStatusChanged:
		t.status = *ev.Status
		if t.held != nil {
			out = append(out, s.releaseHeld(t, ev.Status)...)
		}
		emit("thread/status/changed", map[string]any{"threadId": tid, "status": threadState(t.status, t.approvals > 0)})
	case protocol.EventTurnStarted:
		t.busy, t.turnID, t.turnStart, t.turnItems, t.turnError = true, ev.TurnID, time.Now(), nil, ""
		started := t.turnStart.Unix()
		turn := protocol.AppTurn{ID: ev.TurnID, Items: []any{}, Status: "inProgress", StartedAt: &started}
		for _, cid := range ev.ClientIDs {
			if req, ok := t.startWaiting[cid]; ok {
				out = append(out, outMsg{replyTo: req, params: protocol.AppTurnStartResponse{Turn: turn}})
				delete(t.startWaiting, cid)
			}
		}
		emit("turn/started", map[string]any{"threadId": tid, "turn": turn})
	case protocol.EventTurnCompleted:
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
	case protocol.EventUserMessage, protocol.EventAgentInput:
		item := userMessageItem(newItemID(), ev.Message, nil)
		t.turnItems = append(t.turnItems, item)
		emit("item/started", itemNote(tid, turnID, item, "startedAtMs"))
		emit("item/completed", itemNote(tid, turnID, item, "completedAtMs"))
	case protocol.EventReasoningDelta:
		if t.reasonItem == "" {
			t.reasonItem = newItemID()
			t.reasonText.Reset()
			emit("item/started", itemNote(tid, turnID, protocol.AppReasoningItem{Type: "reasoning", ID: t.reasonItem, Summary: []string{}, Content: []string{}}, "startedAtMs"))
		}
		t.reasonText.WriteString(ev.Delta)
		emit("item/reasoning/summaryTextDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": t.reasonItem, "delta": ev.Delta, "summaryIndex": 0})
	case protocol.EventMessageDelta:
		out = append(out, s.closeReasoning(t, turnID)...)
		if t.msgItem == "" {
			t.msgItem = newItemID()
			t.msgText.Reset()
			emit("item/started", itemNote(tid, turnID, protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: ""}, "startedAtMs"))
		}
		t.msgText.WriteString(ev.Delta)
		emit("item/agentMessage/delta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": t.msgItem, "delta": ev.Delta})
	case protocol.EventMessageReset:
		// The stream restarted: the completed item carries the final text.
		t.msgText.Reset()
	case protocol.EventMessage:
		out = append(out, s.closeReasoning(t, turnID)...)
		if t.msgItem == "" {
			t.msgItem = newItemID()
			emit("item/started", itemNote(tid, turnID, protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: ""}, "startedAtMs"))
		}
		out = append(out, s.closeMessage(t, turnID, ev.Message)...)
	case protocol.EventToolCallBegin:
		out = append(out, s.closeReasoning(t, turnID)...)
		out = append(out, s.closeMessage(t, turnID, "")...)
		item := toolItem(*ev.Tool, ev.ThreadID, t.info.Cwd)
		t.tools[ev.Tool.CallID] = item
		emit("item/started", itemNote(tid, turnID, item, "startedAtMs"))
	case protocol.EventToolCallEnd:
		item, ok := t.tools[ev.Tool.CallID]
		if !ok {
			item = toolItem(*ev.Tool, ev.ThreadID, t.info.Cwd)
		}
		delete(t.tools, ev.Tool.CallID)
		wasDeclined := t.declined[ev.Tool.CallID]
		delete(t.declined, ev.Tool.CallID)
		item = finishToolItem(item, *ev.Tool, wasDeclined)
		if collab, ok := item.(protocol.AppCollabToolCallItem); ok {
			item = s.withAgentStates(collab)
		}
		live := t.liveOutput[ev.Tool.CallID]
		delete(t.liveOutput, ev.Tool.CallID)
		if cmd, ok := item.(protocol.AppCommandExecutionItem); ok && ev.Tool.Output != "" && !live {
			// No live output came (an approval declined it, or no Emit): one
			// delta with the whole output at the end.
			emit("item/commandExecution/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": cmd.ID, "delta": ev.Tool.Output})
		}
		t.turnItems = append(t.turnItems, item)
		emit("item/completed", itemNote(tid, turnID, item, "completedAtMs"))
	case protocol.EventExecOutputDelta:
		if ev.Tool == nil {
			break
		}
		if cmd, ok := t.tools[ev.Tool.CallID].(protocol.AppCommandExecutionItem); ok && ev.Delta != "" {
			t.liveOutput[ev.Tool.CallID] = true
			emit("item/commandExecution/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": cmd.ID, "delta": ev.Delta})
		}
	case protocol.EventPlanUpdated:
		steps := []map[string]string{}
		for _, st := range ev.Plan.Steps {
			steps = append(steps, map[string]string{"step": st.Step, "status": planStatus(st.Status)})
		}
		emit("turn/plan/updated", map[string]any{"threadId": tid, "turnId": turnID, "explanation": strPtr(ev.Plan.Explanation), "plan": steps})
	case protocol.EventApprovalRequested:
		out = append(out, s.requestApproval(sess, t, *ev.Approval)...)
	case protocol.EventApprovalResolved:
		for id, pa := range s.approvals {
			if pa.approval.ID == ev.Approval.ID {
				delete(s.approvals, id) // answered elsewhere (policy, shutdown)
			}
		}
		asker := s.threads[ev.Approval.ThreadID]
		if asker == nil {
			asker = t
		}
		if asker.approvals > 0 {
			asker.approvals--
		}
		if !ev.Decision.Approved() && ev.Approval.CallID != "" {
			asker.declined[ev.Approval.CallID] = true
		}
		emit("thread/status/changed", map[string]any{"threadId": string(asker.info.ID), "status": threadState(asker.status, asker.approvals > 0)})
	case protocol.EventNoteUpdated:
		if ev.Note != nil {
			t.info.Note = *ev.Note
		}
		emit("thread/note/updated", protocol.AppThreadNoteUpdatedNotification{ThreadID: tid, Note: strPtr(t.info.Note)})
	case protocol.EventTokenUsage:
		last, total := protocol.TokenUsage{}, protocol.TokenUsage{}
		if ev.Usage != nil {
			last = *ev.Usage
		}
		if ev.TotalUsage != nil {
			total = *ev.TotalUsage
		}
		emit("thread/tokenUsage/updated", map[string]any{"threadId": tid, "turnId": turnID,
			"tokenUsage": map[string]any{"last": protocol.NewAppTokenUsage(last), "total": protocol.NewAppTokenUsage(total)}})
	case protocol.EventError:
		t.turnError = ev.Message
		emit("error", map[string]any{"threadId": tid, "turnId": turnID, "willRetry": false, "error": protocol.AppTurnError{Message: ev.Message}})
	case protocol.EventStreamRetry:
		emit("error", map[string]any{"threadId": tid, "turnId": turnID, "willRetry": true, "error": protocol.AppTurnError{Message: ev.Message}})
	case protocol.EventWarning:
		emit("warning", map[string]any{"threadId": tid, "message": ev.Message})
	case protocol.EventBackground:
		if ev.Background != nil && ev.Background.Warning {
			emit("warning", map[string]any{"threadId": tid, "message": ev.Background.Message})
		}
	case protocol.EventThreadClosed:
		emit("thread/closed", map[string]any{"threadId": tid})
	}
	return out
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
