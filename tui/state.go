package tui

import (
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
)

// entryKind says what a transcript entry shows.
type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryCard
	entryPlan
	entryError
	entryWarning
	entryInfo
)

// entry is one block of a transcript. Rendered lines are cached per width
// and recomputed only when the entry changes.
type entry struct {
	kind      entryKind
	text      string
	final     bool // assistant message complete: render Markdown
	tool      *protocol.ToolCall
	running   bool   // tool call not finished
	progress  string // latest tool_progress of a running call (MCP)
	liveTail  string // the end of a running command's output so far
	collapsed bool
	// decision is the approval answer the call got ("" when none asked);
	// stopped: its turn ended before the call did (an interrupt).
	decision protocol.ReviewDecision
	stopped  bool
	// selected: the call has the tool-call highlight (alt+↑/↓), or the
	// user's message is the one esc-esc would rewind to (rewind.go).
	selected bool
	plan     *protocol.Plan
	cardIDs  []protocol.ThreadID
	cardCall string     // collab tool name of a status card
	result   cardResult // what the collab call returned

	cacheW     int
	cacheLines []string
	dirty      bool
	// cacheFrame is the spinner frame a live card was rendered at: within
	// a frame (many renders as events arrive) it is reused.
	cacheFrame int
	// The finished blocks of a streaming message, rendered as Markdown.
	stableLen, stableW int
	stableLines        []string
	// The finished lines of the block being written, as Markdown too.
	doneLen, doneW int
	doneLines      []string
	stream         streamText
}

func (e *entry) touch() { e.dirty = true }

// threadView is the TUI's picture of one thread, built from events.
type threadView struct {
	info     protocol.ThreadInfo
	status   protocol.AgentStatus
	statusAt time.Time // when status was reached (zero: unknown)
	// turnAt is when the current (or last) turn started: elapsed counts
	// from it, not from the thread's creation.
	turnAt time.Time
	// closed marks a thread that was shut down; lastReal keeps the status it
	// had before (completed, errored, interrupted), which closing does not undo.
	closed   bool
	lastReal protocol.AgentStatus
	// lastRealAt is when lastReal was reached (zero: unknown).
	lastRealAt time.Time
	entries    []*entry
	streaming  *entry
	// unread holds the Seq of inbox notifications (inbox surface) this
	// agent has not read yet; the tree shows their count.
	unread map[int]bool
	usage  protocol.TokenUsage
	// lastCall is the last model call's usage: its input and output are
	// the context the agent carries now (context_gauge.go).
	lastCall protocol.TokenUsage
	lastTool string
	children []protocol.ThreadID
	toolIdx  map[string]*entry // call id → entry
	rowCache treeRowCache      // its tree row's rendered parts
	// queued are messages sent to the thread that it has not taken yet.
	queued []string
	// scroll: top line when not following the bottom.
	follow bool
	top    int
	// toolSel is the entry index of the highlighted tool call (-1: none).
	toolSel int
	// replayedTo is the time of the last event replayed from the rollout
	// (zero: none); live events up to it were applied already.
	replayedTo time.Time
}

func newThreadView(info protocol.ThreadInfo) *threadView {
	t := &threadView{info: info, turnAt: info.StartedAt, toolIdx: map[string]*entry{}, follow: true, toolSel: -1}
	t.setStatus(info.Status, time.Time{})
	return t
}

// setStatus records a status change. Shutting down marks the thread closed
// but keeps the status it ended with.
func (t *threadView) setStatus(st protocol.AgentStatus, at time.Time) {
	if sameStatus(st, t.status) && !t.statusAt.IsZero() {
		return // reported again (a resume): it was reached back then
	}
	if t.status.Kind == protocol.StatusShutdown && sameStatus(st, t.lastReal) && !t.lastRealAt.IsZero() {
		// Reopened as it ended (a resume): open again, ended back then.
		t.status, t.statusAt, t.closed = st, t.lastRealAt, false
		return
	}
	switch st.Kind {
	case protocol.StatusShutdown:
		t.closed = true
		if t.lastReal.Kind != "" && !t.status.IsActive() && !t.statusAt.IsZero() {
			t.status = st // it ended earlier: elapsed stops there
			return
		}
	case protocol.StatusCompleted, protocol.StatusErrored, protocol.StatusInterrupted:
		t.lastReal, t.lastRealAt = st, at
		t.closed = false // a status after the close: it was reopened
	case protocol.StatusRunning:
		if t.status.Kind != protocol.StatusRunning && !at.IsZero() {
			t.turnAt = at
		}
		t.closed = false
	case protocol.StatusPendingInit:
		t.closed = false
	}
	t.status, t.statusAt = st, at
}

// unqueue drops a delivered (or failed) message from the queue: the one
// with that text, else the oldest (delivery is in order).
func (t *threadView) unqueue(text string) {
	if len(t.queued) == 0 {
		return
	}
	i := 0
	for j, q := range t.queued {
		if q == text {
			i = j
			break
		}
	}
	t.queued = append(t.queued[:i], t.queued[i+1:]...)
}

// fresh reports a thread that has not run a turn: the engine reports a new
// root as completed with no message, which is not news.
func (t *threadView) fresh() bool {
	return t.status.Kind == protocol.StatusCompleted && !t.status.HasMessage && len(t.entries) == 0 && len(t.queued) == 0
}

// note is the thread's note as the model set it; the default note the
// engine writes for a spawn without one ("agent_type=…; agent_name=…")
// repeats the role and is not shown.
func (t *threadView) note() string {
	if isDefaultNote(t.info.Note) {
		return ""
	}
	return t.info.Note
}

func isDefaultNote(n string) bool {
	if n == "" {
		return false
	}
	for _, part := range strings.Split(n, "; ") {
		k, _, ok := strings.Cut(part, "=")
		if !ok || (k != "agent_type" && k != "agent_name" && k != "agent_description") {
			return false
		}
	}
	return true
}

// shown is the status to display: a closed thread shows how it ended.
func (t *threadView) shown() protocol.AgentStatus {
	if t.status.Kind == protocol.StatusShutdown && t.lastReal.Kind != "" {
		return t.lastReal
	}
	return t.status
}

// learn takes a status a collaboration call reported for this thread
// (resumed sessions rebuild how closed children ended from it).
func (t *threadView) learn(st protocol.AgentStatus) {
	switch st.Kind {
	case protocol.StatusCompleted, protocol.StatusErrored, protocol.StatusInterrupted:
		t.lastReal = st
	}
}

func (t *threadView) add(e *entry) *entry {
	t.entries = append(t.entries, e)
	return e
}

// session is every thread the TUI knows, in tree order.
type session struct {
	threads map[protocol.ThreadID]*threadView
	order   []protocol.ThreadID
	root    protocol.ThreadID
	// cards lists the status-card entries that show a thread, so a status
	// change re-renders just those.
	cards map[protocol.ThreadID][]*entry
	// activity is each Task sub-agent's live activity (task_card.go).
	activity map[protocol.ThreadID]*subagentActivity
	// review is what the diff review screen lists (diffreview_log.go).
	review reviewLog
	// callSeq numbers delegation calls as seen, for spawn order
	// (spawn_order.go).
	callSeq map[string]int
	// skills are the session's skill names, to mark $mentions
	// (skill_mark.go).
	skills map[string]bool
	// traces are the approval requests put to the user, by id, and
	// whether their answer's trace is shown (approval_trace.go).
	traces map[string]traceState
}

func newSession() *session {
	return &session{threads: map[protocol.ThreadID]*threadView{}, cards: map[protocol.ThreadID][]*entry{},
		activity: map[protocol.ThreadID]*subagentActivity{}}
}

func (s *session) ensure(info protocol.ThreadInfo) *threadView {
	if t, ok := s.threads[info.ID]; ok {
		t.info = info
		s.touchCards(info.ID) // cards show its label and note
		return t
	}
	t := newThreadView(info)
	s.threads[info.ID] = t
	s.order = append(s.order, info.ID)
	if info.ParentID == "" && s.root == "" {
		s.root = info.ID
	}
	if p, ok := s.threads[info.ParentID]; ok {
		s.addChild(p, info.ID)
	}
	s.linkTaskChild(info)
	return t
}

// collabTools get status cards.
var collabTools = map[string]bool{"spawn_agent": true, "wait": true, "close_agent": true, "resume_agent": true, "send_input": true,
	"Task": true, "TaskOutput": true} // seed 004's (task_card.go)

// apply folds one event into the session. It returns the thread touched,
// or nil when the event names no known thread or is malformed (a payload
// its type needs is missing): such an event is skipped, never dereferenced.
func (s *session) apply(ev protocol.Event) *threadView {
	msg, err := ev.Msg()
	if err != nil {
		return nil
	}
	if m, ok := msg.(protocol.ThreadStartedMsg); ok {
		t := s.ensure(m.Thread)
		t.setStatus(m.Thread.Status, ev.Timestamp)
		return t
	}
	t := s.threads[ev.ThreadID]
	if t == nil {
		return nil
	}
	s.applyMsg(t, msg, ev)
	return t
}

// applyMsg folds one typed event message into thread t; ev is its
// envelope, read only for plain fields (time, interrupted flag).
func (s *session) applyMsg(t *threadView, msg protocol.EventMsg, ev protocol.Event) {
	at := ev.Timestamp
	switch m := msg.(type) {
	case protocol.StatusChangedMsg:
		s.applyStatus(t, m, at)
	case protocol.ThreadClosedMsg:
		t.setStatus(protocol.Shutdown(), at)
		for _, c := range s.cards[t.info.ID] {
			c.touch()
		}
	case protocol.UserMessageMsg:
		s.review.noteTurn(t, at)
		t.unqueue(m.Text)
		t.add(&entry{kind: entryUser, text: m.Text, collapsed: true})
		s.noteSkills(t, m.Text)
	case protocol.AgentInputMsg:
		// Another agent's message: shown as from that agent, never as the user's.
		from := "agent " + m.From.Short()
		if f := s.threads[m.From]; f != nil {
			from = f.fullName()
		}
		t.add(&entry{kind: entryInfo, text: "message from " + from + ":\n" + m.Text})
	case protocol.MessageDeltaMsg, protocol.MessageResetMsg, protocol.AgentMessageMsg:
		t.applyStream(msg)
	case protocol.ToolCallBeginMsg:
		s.toolBegin(t, m.Call)
	case protocol.ToolCallEndMsg:
		s.toolEnd(t, m.Call, at)
	case protocol.PlanUpdatedMsg:
		p := m.Plan
		t.add(&entry{kind: entryPlan, plan: &p})
	case protocol.ErrorMsg:
		t.streaming = nil
		t.add(&entry{kind: entryError, text: m.Text})
	case protocol.ExecOutputDeltaMsg:
		t.applyOutputDelta(m.Call.CallID, m.Delta)
	case protocol.ToolProgressMsg:
		if e := t.toolIdx[m.Call.CallID]; e != nil && e.running {
			e.progress = progressLine(m.Text)
			e.touch()
		}
	case protocol.WarningMsg:
		t.add(&entry{kind: entryWarning, text: m.Text})
	case protocol.StreamRetryMsg:
		t.add(&entry{kind: entryWarning, text: "↻ " + m.Text})
	case protocol.ContextCompactedMsg:
		t.add(&entry{kind: entryInfo, text: compactionMarker(m.Compaction)})
	case protocol.WebSearchMsg:
		t.add(&entry{kind: entryInfo, text: webSearchLine(m.Call)})
	case protocol.NoteUpdatedMsg:
		t.info.Note = m.Note
		s.touchCards(t.info.ID)
	case protocol.TokenUsageMsg:
		// Only the running total is shown; an event without one leaves it.
		if m.Total != (protocol.TokenUsage{}) {
			t.usage = m.Total
		}
		if m.Usage != (protocol.TokenUsage{}) {
			t.lastCall = m.Usage
		}
	case protocol.BackgroundMsg:
		if m.Event.Warning {
			t.add(&entry{kind: entryWarning, text: m.Event.Message})
		}
	case protocol.TurnCompletedMsg:
		t.streaming = nil
	case protocol.InboxMsg:
		t.applyInbox(&m.Change)
	case protocol.SubagentActivityMsg:
		s.applyActivity(m.Activity)
	case protocol.PatchRevertedMsg:
		s.review.noteRevert(t.info.ID, m.Revert)
		t.add(&entry{kind: entryInfo, text: revertedText(m.Revert)})
	case protocol.ApprovalRequestedMsg:
		s.noteAsked(m.Request)
	case protocol.ApprovalResolvedMsg:
		// The call's mark says it was denied (or stopped the turn).
		if e := t.toolIdx[m.Request.CallID]; e != nil && m.Request.CallID != "" {
			e.decision = m.Decision
			e.touch()
		}
		s.traceAnswer(t, m.Request, m.Decision, m.Resolution)
	}
}

// applyStatus shows a thread's new status on it and on the cards that show it.
func (s *session) applyStatus(t *threadView, m protocol.StatusChangedMsg, at time.Time) {
	t.setStatus(m.Status, at)
	if !m.Status.IsActive() {
		t.stopRunning()
	}
	if m.Status.Kind == protocol.StatusInterrupted {
		t.markKilledByInterrupt()
	}
	for _, c := range s.cards[t.info.ID] {
		c.touch()
		// Where the parent waits on it, say what happened to it; whether
		// the wait wakes is the wait card's to say (issue 35 item 10:
		// "still waiting" under a card that had woken).
		if m.Status.Kind == protocol.StatusInterrupted && c.running && c.cardCall == "wait" {
			if p := s.threads[t.info.ParentID]; p != nil {
				p.add(&entry{kind: entryInfo, text: "‖ " + t.fullName() + " was interrupted"})
			}
		}
	}
}

// toolBegin adds a running call: a tool entry, or a card for a delegation call.
func (s *session) toolBegin(t *threadView, call protocol.ToolCall) {
	t.streaming = nil
	t.lastTool = call.Name
	if call.ToolKind() == protocol.ToolKindPlan {
		return // shown as the plan itself (plan_updated)
	}
	e := &entry{kind: entryTool, tool: &call, running: true, collapsed: true}
	if collabTools[call.Name] {
		e.kind, e.cardCall = entryCard, call.Name
		s.noteCall(call.CallID)
		s.showOnCard(e, cardTargets(&call))
	}
	t.toolIdx[call.CallID] = t.add(e)
	if call.Name == "Task" {
		s.linkTaskCall(t.info.ID, e)
	}
}

// toolEnd completes a call's entry (one is made when its begin was not seen).
func (s *session) toolEnd(t *threadView, call protocol.ToolCall, at time.Time) {
	e := t.toolIdx[call.CallID]
	if e == nil && call.ToolKind() == protocol.ToolKindPlan {
		if call.IsError {
			t.add(&entry{kind: entryError, text: call.Output})
		}
		return
	}
	if e == nil {
		e = t.add(&entry{kind: entryTool, collapsed: true})
		if collabTools[call.Name] {
			e.kind, e.cardCall = entryCard, call.Name
		}
	}
	e.tool, e.running = &call, false
	s.review.notePatch(t, &call, at)
	if e.kind == entryCard {
		ids := call.AgentIDs
		if len(ids) == 0 {
			ids = e.cardIDs
		}
		ids, e.result = parseCardResult(&call, ids)
		s.showOnCard(e, ids)
	}
	e.touch()
}

// applyStream folds a streaming reply's deltas, resets and final text into its entry.
func (t *threadView) applyStream(msg protocol.EventMsg) {
	switch m := msg.(type) {
	case protocol.MessageDeltaMsg:
		if t.streaming == nil {
			t.streaming = t.add(&entry{kind: entryAssistant})
		}
		t.streaming.text = t.streaming.stream.appendDelta(m.Delta)
		t.streaming.touch()
	case protocol.MessageResetMsg:
		if t.streaming != nil {
			t.streaming.text = ""
			t.streaming.stream.reset()
			t.streaming.touch()
		}
	case protocol.AgentMessageMsg:
		if t.streaming == nil {
			t.streaming = t.add(&entry{kind: entryAssistant})
		}
		t.streaming.text, t.streaming.final = m.Text, true
		t.streaming.stream.reset()
		if m.Interrupted {
			t.streaming.text += interruptedMark
		}
		t.streaming.touch()
		t.streaming = nil
	}
}

// stopRunning ends the calls still running when the thread stopped: no
// end will come for them (an interrupt, a crash), so no spinner either.
func (t *threadView) stopRunning() {
	for _, e := range t.toolIdx {
		if e.running && e.kind == entryTool {
			e.running, e.stopped = false, true
			e.touch()
		}
	}
}

// markKilledByInterrupt marks the commands of the interrupted turn that
// died of the interrupt's signal (exit 130, 137, 143) as interrupted, not
// failed: "‖ interrupted", never "✗ exit 137" (issue 35 item 9).
func (t *threadView) markKilledByInterrupt() {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := t.entries[i]
		if e.kind == entryUser {
			return // the turn's start
		}
		if e.kind != entryTool || e.tool == nil || e.tool.ExitCode == nil {
			continue
		}
		if c := *e.tool.ExitCode; c == 130 || c == 137 || c == 143 {
			e.stopped = true
			e.touch()
		}
	}
}

// applyOutputDelta shows the end of a running command's output so far.
func (t *threadView) applyOutputDelta(callID, delta string) {
	if e := t.toolIdx[callID]; e != nil && e.running {
		e.liveTail = keepTail(e.liveTail+delta, liveTailBytes)
		e.touch()
	}
}

// touchCards re-renders the cards that show thread id.
func (s *session) touchCards(id protocol.ThreadID) {
	for _, c := range s.cards[id] {
		c.touch()
	}
}

// showOnCard sets the agents a card shows and indexes the card under
// each, so their status changes re-render it.
func (s *session) showOnCard(e *entry, ids []protocol.ThreadID) {
	for _, id := range ids {
		if !containsEntry(s.cards[id], e) {
			s.cards[id] = append(s.cards[id], e)
		}
	}
	e.cardIDs = ids
}

// interruptedMark ends a reply an interrupt cut off while it streamed.
const interruptedMark = " … ⏸ interrupted"

func containsEntry(list []*entry, e *entry) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// loadHistory rebuilds a transcript from stored items (resumed sessions):
// collaboration calls become cards again, showing what they returned, and
// what they reported about agents since closed is how those ended.
func (s *session) loadHistory(t *threadView, items []protocol.Item) {
	calls := map[string]*entry{}
	for _, it := range items {
		switch it.Type {
		case protocol.ItemMessage:
			if it.IsTurnAbortedNotice() {
				continue // the interrupted turn already ends in its mark
			}
			if name := skillNotice(it.Content); it.IsGroveNotice() && name != "" {
				t.add(&entry{kind: entryInfo, text: skillLine(name)})
			} else if it.IsGroveNotice() {
				// grove's own words to the model (crash recovery), not the user's.
				t.add(&entry{kind: entryInfo, text: "grove: " + it.Content})
			} else if it.Role == protocol.RoleAssistant {
				text := it.Content
				if it.Interrupted {
					text += interruptedMark
				}
				t.add(&entry{kind: entryAssistant, text: text, final: true})
			} else if it.Role == protocol.RoleUser {
				t.add(&entry{kind: entryUser, text: it.Content, collapsed: true})
			} else if it.Role == protocol.RoleAgent {
				t.add(&entry{kind: entryInfo, text: "message from agent " + it.From.Short() + ":\n" + it.Content})
			}
		case protocol.ItemFunctionCall:
			if protocol.ToolKindOf(it.Name) == protocol.ToolKindPlan {
				continue
			}
			e := &entry{kind: entryTool, tool: &protocol.ToolCall{CallID: it.CallID, Name: it.Name, Arguments: it.Arguments}, collapsed: true}
			if collabTools[it.Name] {
				e.kind, e.cardCall = entryCard, it.Name
				s.noteCall(it.CallID)
				s.showOnCard(e, cardTargets(e.tool))
			}
			calls[it.CallID] = t.add(e)
		case protocol.ItemFunctionCallOutput:
			e := calls[it.CallID]
			if e == nil {
				continue
			}
			e.tool.Output = it.Output
			if e.kind == entryCard {
				ids, res := parseCardResult(e.tool, e.cardIDs)
				e.result = res
				s.showOnCard(e, ids)
				for id, st := range res.statuses {
					if c := s.threads[id]; c != nil {
						c.learn(st)
					}
				}
			}
		}
	}
}

// treeOrder lists threads depth-first from the root, children in spawn order.
func (s *session) treeOrder() []protocol.ThreadID {
	var out []protocol.ThreadID
	seen := map[protocol.ThreadID]bool{}
	var visit func(id protocol.ThreadID)
	visit = func(id protocol.ThreadID) {
		if seen[id] {
			return
		}
		seen[id] = true
		out = append(out, id)
		if t := s.threads[id]; t != nil {
			for _, c := range t.children {
				visit(c)
			}
		}
	}
	for _, id := range s.order {
		if t := s.threads[id]; t != nil && (t.info.ParentID == "" || s.threads[t.info.ParentID] == nil) {
			visit(id)
		}
	}
	return out
}
