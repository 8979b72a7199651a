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
			_ = s.out.request(m.reqID, m.method, m.params)
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
	t := s.threads[ev.ThreadID]
	if m, ok := msg.(protocol.ThreadStartedMsg); ok {
		if t == nil {
			t = newThread(sess, m.Thread)
			s.threads[ev.ThreadID] = t
		}
		th := s.appThread(m.Thread, sess.root, threadState(m.Thread.Status, false), "")
		if m.Thread.ID == sess.root {
			// The root is the thread thread/start answered with.
			rootThread(sess, &th)
		}
		if m.Thread.ID == sess.root && sess.forked != nil {
			th, sess.forked = *sess.forked, nil
		}
		return []outMsg{{method: "thread/started", params: map[string]any{"thread": th}}}
	}
	if t == nil {
		return nil
	}
	var out []outMsg
	if _, status := msg.(protocol.StatusChangedMsg); t.held != nil && !status {
		out = append(out, s.releaseHeld(t, nil)...)
	}
	turnID := ev.TurnID
	if turnID == "" {
		turnID = t.turnID
	}
	tr := translation{s: s, sess: sess, t: t, tid: string(ev.ThreadID), turnID: turnID, ev: ev, out: out}
	switch m := msg.(type) {
	case protocol.StatusChangedMsg, protocol.TurnStartedMsg, protocol.TurnCompletedMsg:
		tr.turn(m)
	case protocol.UserMessageMsg, protocol.AgentInputMsg, protocol.ReasoningDeltaMsg, protocol.MessageDeltaMsg,
		protocol.MessageResetMsg, protocol.AgentMessageMsg:
		tr.message(m)
	case protocol.ToolCallBeginMsg, protocol.ToolCallEndMsg, protocol.ExecOutputDeltaMsg:
		tr.tool(m)
	case protocol.ApprovalRequestedMsg:
		tr.out = append(tr.out, s.requestApproval(sess, t, m.Request)...)
	case protocol.ApprovalResolvedMsg:
		tr.approvalResolved(m)
	case protocol.UserInputRequestedMsg:
		tr.out = append(tr.out, s.requestUserInput(sess, t, m.Request)...)
	case protocol.UserInputResolvedMsg:
		tr.userInputResolved(m)
	case protocol.WebSearchMsg:
		tr.webSearch(m)
	case protocol.SubagentCreatedMsg, protocol.SubagentsListResponseMsg, protocol.InboxResponseMsg,
		protocol.SubagentReplySuccessMsg, protocol.SubagentEndedMsg, protocol.SubagentActivityMsg:
		tr.legacyEvent(msg)
	default:
		tr.other(m)
	}
	return tr.out
}

// translation is one event being translated (under Server.mu).
type translation struct {
	s           *Server
	sess        *session
	t           *thread
	tid, turnID string
	ev          protocol.Event
	out         []outMsg
}

func (tr *translation) emit(method string, params any) {
	tr.out = append(tr.out, outMsg{method: method, params: params})
}

// turn handles the events that start and end turns.
func (tr *translation) turn(msg any) {
	t, ev := tr.t, tr.ev
	switch m := msg.(type) {
	case protocol.StatusChangedMsg:
		t.status = m.Status
		if t.held != nil {
			tr.out = append(tr.out, tr.s.releaseHeld(t, &m.Status)...)
		}
		tr.emit("thread/status/changed", map[string]any{"threadId": tr.tid, "status": threadState(t.status, t.approvals > 0)})
	case protocol.TurnStartedMsg:
		t.busy, t.turnID, t.turnStart, t.turnItems, t.turnError = true, ev.TurnID, time.Now(), nil, ""
		started := t.turnStart.Unix()
		turn := protocol.AppTurn{ID: ev.TurnID, Items: []any{}, Status: "inProgress", StartedAt: &started, ItemsView: "notLoaded"}
		review := ""
		for _, cid := range m.ClientIDs {
			if label, ok := t.reviewWaiting[cid]; ok {
				review = label
				delete(t.reviewWaiting, cid)
			}
			if req, ok := t.startWaiting[cid]; ok {
				var answer any = protocol.AppTurnStartResponse{Turn: turn}
				if review != "" {
					answer = map[string]any{"turn": turn, "reviewThreadId": tr.tid}
				}
				tr.out = append(tr.out, outMsg{replyTo: req, params: answer})
				delete(t.startWaiting, cid)
			}
		}
		tr.emit("turn/started", map[string]any{"threadId": tr.tid, "turn": turn})
		if review != "" {
			tr.enterReview(review)
		}
	case protocol.TurnCompletedMsg:
		tr.out = append(tr.out, tr.s.closeReasoning(t, tr.turnID)...)
		tr.out = append(tr.out, tr.s.closeMessage(t, tr.turnID, "")...)
		done := time.Now()
		completed, dur := done.Unix(), done.Sub(t.turnStart).Milliseconds()
		if t.reviewTurn == ev.TurnID {
			tr.exitReview()
		}
		items := t.turnItems
		if items == nil {
			items = []any{}
		}
		started := t.turnStart.Unix()
		t.held = &protocol.AppTurn{ID: ev.TurnID, Items: items, Status: "completed", StartedAt: &started, CompletedAt: &completed, DurationMs: &dur, ItemsView: "full"}
		if t.turnError != "" {
			t.held.Status, t.held.Error = "failed", &protocol.AppTurnError{Message: t.turnError}
		}
		t.busy, t.turnID = len(t.startWaiting) > 0, ""
	}
}

// message handles input, reasoning and the agent's message.
func (tr *translation) message(msg any) {
	s, t, tid, turnID := tr.s, tr.t, tr.tid, tr.turnID
	switch m := msg.(type) {
	case protocol.UserMessageMsg:
		for _, cid := range m.ClientIDs {
			if in, ok := t.clientInput[cid]; ok {
				// The client's own input, text_elements included, as
				// Codex echoes it in the userMessage item.
				delete(t.clientInput, cid)
				tr.out = append(tr.out, s.clientInputItem(t, tid, turnID, in)...)
				return
			}
		}
		tr.out = append(tr.out, s.inputItem(t, tid, turnID, m.Text)...)
	case protocol.AgentInputMsg:
		tr.out = append(tr.out, s.inputItem(t, tid, turnID, m.Text)...)
	case protocol.ReasoningDeltaMsg:
		if t.reasonItem == "" {
			t.reasonItem = newItemID()
			t.reasonText.Reset()
			tr.emit("item/started", itemNote(tid, turnID, protocol.AppReasoningItem{Type: "reasoning", ID: t.reasonItem, Summary: []string{}, Content: []string{}}, "startedAtMs"))
		}
		t.reasonText.WriteString(m.Delta)
		tr.emit("item/reasoning/summaryTextDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": t.reasonItem, "delta": m.Delta, "summaryIndex": 0})
	case protocol.MessageDeltaMsg:
		tr.out = append(tr.out, s.closeReasoning(t, turnID)...)
		if t.msgItem == "" {
			t.msgItem = newItemID()
			t.msgText.Reset()
			tr.emit("item/started", itemNote(tid, turnID, protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: ""}, "startedAtMs"))
		}
		t.msgText.WriteString(m.Delta)
		tr.emit("item/agentMessage/delta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": t.msgItem, "delta": m.Delta})
	case protocol.MessageResetMsg:
		// The stream restarted: the completed item carries the final text.
		t.msgText.Reset()
	case protocol.AgentMessageMsg:
		tr.out = append(tr.out, s.closeReasoning(t, turnID)...)
		if t.msgItem == "" {
			t.msgItem = newItemID()
			tr.emit("item/started", itemNote(tid, turnID, protocol.AppAgentMessageItem{Type: "agentMessage", ID: t.msgItem, Text: ""}, "startedAtMs"))
		}
		tr.out = append(tr.out, s.closeMessage(t, turnID, m.Text)...)
	}
}

// tool handles tool calls and their live output.
func (tr *translation) tool(msg any) {
	s, t, tid, turnID := tr.s, tr.t, tr.tid, tr.turnID
	switch m := msg.(type) {
	case protocol.ToolCallBeginMsg:
		tr.out = append(tr.out, s.closeReasoning(t, turnID)...)
		tr.out = append(tr.out, s.closeMessage(t, turnID, "")...)
		item := toolItem(m.Call, tr.ev.ThreadID, t.info.Cwd)
		t.tools[m.Call.CallID] = item
		tr.emit("item/started", itemNote(tid, turnID, item, "startedAtMs"))
	case protocol.ToolCallEndMsg:
		item, ok := t.tools[m.Call.CallID]
		if !ok {
			item = toolItem(m.Call, tr.ev.ThreadID, t.info.Cwd)
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
		if fc, ok := item.(protocol.AppFileChangeItem); ok && !wasDeclined && m.Call.Output != "" {
			// apply_patch's own report (Codex: item/fileChange/outputDelta).
			tr.emit("item/fileChange/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": fc.ID, "delta": m.Call.Output})
		}
		if cmd, ok := item.(protocol.AppCommandExecutionItem); ok && cmd.AggregatedOutput != nil && *cmd.AggregatedOutput != "" && !live {
			// No live output came (no Emit): one delta with the whole
			// output at the end.
			tr.emit("item/commandExecution/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": cmd.ID, "delta": *cmd.AggregatedOutput})
		}
		t.turnItems = append(t.turnItems, item)
		tr.emit("item/completed", itemNote(tid, turnID, item, "completedAtMs"))
	case protocol.ExecOutputDeltaMsg:
		if cmd, ok := t.tools[m.Call.CallID].(protocol.AppCommandExecutionItem); ok && m.Delta != "" {
			t.liveOutput[m.Call.CallID] = true
			tr.emit("item/commandExecution/outputDelta", map[string]any{"threadId": tid, "turnId": turnID, "itemId": cmd.ID, "delta": m.Delta})
		}
	}
}

// approvalResolved forgets an approval answered here or elsewhere (policy,
// shutdown) and updates the asking thread's status.
func (tr *translation) approvalResolved(m protocol.ApprovalResolvedMsg) {
	s := tr.s
	for id, pa := range s.approvals {
		if pa.userInput == nil && pa.approval.ID == m.Request.ID {
			delete(s.approvals, id)
			// Answered, interrupted or shut down: the client closes its
			// dialog (Codex's serverRequest/resolved).
			tr.emit("serverRequest/resolved", map[string]any{"threadId": string(pa.approval.ThreadID), "requestId": id})
		}
	}
	asker := s.threads[m.Request.ThreadID]
	if asker == nil {
		asker = tr.t
	}
	if asker.approvals > 0 {
		asker.approvals--
	}
	// A request cancelled unanswered (turn interrupted or ended, agent
	// closed) was declined by nobody: its call ends failed, not declined.
	if !m.Decision.Approved() && m.Resolution != protocol.ResolvedCancelled && m.Request.CallID != "" {
		asker.declined[m.Request.CallID] = true
	}
	tr.emit("thread/status/changed", map[string]any{"threadId": string(asker.info.ID), "status": threadState(asker.status, asker.approvals > 0)})
}

// other handles plans, notes, usage, errors, warnings and closing.
func (tr *translation) other(msg any) {
	t, tid, turnID := tr.t, tr.tid, tr.turnID
	switch m := msg.(type) {
	case protocol.PlanUpdatedMsg:
		steps := []map[string]string{}
		for _, st := range m.Plan.Steps {
			steps = append(steps, map[string]string{"step": st.Step, "status": planStatus(st.Status)})
		}
		tr.emit("turn/plan/updated", map[string]any{"threadId": tid, "turnId": turnID, "explanation": strPtr(m.Plan.Explanation), "plan": steps})
	case protocol.NoteUpdatedMsg:
		t.info.Note = m.Note
		tr.emit("thread/note/updated", protocol.AppThreadNoteUpdatedNotification{ThreadID: tid, Note: strPtr(t.info.Note)})
	case protocol.TokenUsageMsg:
		tr.emit("thread/tokenUsage/updated", map[string]any{"threadId": tid, "turnId": turnID,
			"tokenUsage": map[string]any{"last": protocol.NewAppTokenUsage(m.Usage), "total": protocol.NewAppTokenUsage(m.Total)}})
	case protocol.ErrorMsg:
		t.turnError = m.Text
		tr.emit("error", map[string]any{"threadId": tid, "turnId": turnID, "willRetry": false, "error": protocol.AppTurnError{Message: m.Text}})
	case protocol.StreamRetryMsg:
		tr.emit("error", map[string]any{"threadId": tid, "turnId": turnID, "willRetry": true, "error": protocol.AppTurnError{Message: m.Text}})
	case protocol.WarningMsg:
		tr.emit("warning", map[string]any{"threadId": tid, "message": m.Text})
	case protocol.BackgroundMsg:
		if m.Event.Warning {
			tr.emit("warning", map[string]any{"threadId": tid, "message": m.Event.Message})
		}
	case protocol.ThreadClosedMsg:
		tr.emit("thread/closed", map[string]any{"threadId": tid})
	case protocol.ContextCompactedMsg:
		// Codex 0.169 reports a compaction as a contextCompaction item of
		// the turn (thread/compacted is its older notification).
		item := map[string]any{"type": "contextCompaction", "id": newItemID()}
		tr.emit("item/started", itemNote(tid, turnID, item, "startedAtMs"))
		tr.emit("item/completed", itemNote(tid, turnID, item, "completedAtMs"))
		tr.emit("thread/compacted", compactedNote(tid, tr.ev.TurnID))
	}
}

// clientInputItem records a turn/start's input as its userMessage item.
func (s *Server) clientInputItem(t *thread, tid, turnID string, in []protocol.AppUserInput) []outMsg {
	content := make([]protocol.AppUserInput, len(in))
	for i, u := range in {
		if u.Type == "text" && u.TextElements == nil {
			u.TextElements = []any{}
		}
		content[i] = u
	}
	item := protocol.AppUserMessageItem{Type: "userMessage", ID: newItemID(), Content: content}
	t.turnItems = append(t.turnItems, item)
	return []outMsg{
		{method: "item/started", params: itemNote(tid, turnID, item, "startedAtMs")},
		{method: "item/completed", params: itemNote(tid, turnID, item, "completedAtMs")},
	}
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
	switch {
	case a.MCP != nil:
		out = append(out, outMsg{reqID: id, method: "mcpServer/elicitation/request", params: mcpApprovalParams(a, turnID)})
	case a.Kind == protocol.ApprovalPatch:
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
