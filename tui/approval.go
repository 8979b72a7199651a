package tui

import (
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
)

// A modal must never take an answer from keys meant for the composer: a
// person typing "yes, and…" as a request pops up would otherwise approve it.
// So the modal listens only once it has the input focus, and it takes the
// focus only on a deliberate act, never because time passed: tab, or the
// first key pressed since it appeared being one of its own keys while the
// composer is empty. Once a key went to the composer, only tab reaches it.
// A request to run outside the sandbox always takes a second, separate key
// (enter on a red confirmation) before it is approved.
const (
	// approvalGrace swallows answers right after a modal (or a
	// confirmation) appears, so a key already on its way cannot answer it.
	approvalGrace = 400 * time.Millisecond
)

// approvalChoice is one line of the modal's option list.
type approvalChoice struct {
	decision protocol.ReviewDecision
	shortcut string
	label    string
	word     string // the label in one word (short windows)
}

var approvalChoices = []approvalChoice{
	{protocol.DecisionApproved, "y", "Yes, this once", "once"},
	{protocol.DecisionApprovedForSession, "a", "Yes, and don't ask again this session", "session"},
	{protocol.DecisionDenied, "n", "No", "no"},
	{protocol.DecisionAbort, "esc", "No, and stop the turn", "stop"},
}

// choicesFor is the option list for req: without "for the session" when
// the engine would not remember it (an MCP tool whose approval_mode asks
// before every call), as Codex offers no "Allow for this session" then.
func choicesFor(req *protocol.ApprovalRequest) []approvalChoice {
	if req == nil || req.OffersSession() {
		return approvalChoices
	}
	out := make([]approvalChoice, 0, len(approvalChoices)-1)
	for _, c := range approvalChoices {
		if c.decision != protocol.DecisionApprovedForSession {
			out = append(out, c)
		}
	}
	return out
}

// approvals is the queue of pending requests; the first is shown.
type approvals struct {
	queue   []protocol.ApprovalRequest
	shownAt time.Time
	grace   time.Duration
	// focused: keys go to the modal instead of the composer.
	focused bool
	// typed: a key went elsewhere since the request showed, so the first
	// key can no longer take the focus (only tab can).
	typed bool
	// choice is the highlighted option.
	choice int
	// confirmAt is when an approval that needs a second key was chosen
	// (for the session, or outside the sandbox); zero: not confirming.
	confirmAt time.Time
	// confirmWith is the decision the confirmation gives.
	confirmWith protocol.ReviewDecision
	// scroll is the first shown row of the request's body (a long
	// command), moved with pgup/pgdn while the modal has the focus.
	scroll int
	// page is how many body rows the modal showed at the last key (what
	// pgup/pgdn move); seen marks the body rows that have been on screen
	// at width seenW: a command to run outside the sandbox cannot be
	// approved before every row was (issue 35 item 5).
	page  int
	seen  []bool
	seenW int
	// unread is set when an approval was refused because rows were not
	// seen yet: the modal says so.
	unread bool
}

func (a *approvals) push(r protocol.ApprovalRequest, now time.Time) {
	for _, q := range a.queue {
		if q.ID == r.ID {
			return
		}
	}
	if len(a.queue) == 0 {
		a.show(now)
	}
	a.queue = append(a.queue, r)
}

// remove drops a request (answered here or elsewhere); when the shown one
// goes, the next one starts over: no focus, fresh grace period.
func (a *approvals) remove(id string, now time.Time) {
	for i, q := range a.queue {
		if q.ID == id {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			if i == 0 {
				a.show(now)
			}
			return
		}
	}
}

// show resets the input state for a newly shown request.
func (a *approvals) show(now time.Time) {
	a.shownAt = now
	a.focused, a.typed = false, false
	a.choice, a.scroll = 0, 0
	a.confirmAt, a.confirmWith = time.Time{}, ""
	a.seen, a.seenW, a.unread, a.page = nil, 0, false, 0
}

// markSeen records that body rows [top, top+n) of a body of total rows,
// at width w, are on screen.
func (a *approvals) markSeen(top, n, total, w int) {
	if w != a.seenW || len(a.seen) != total {
		a.seen, a.seenW = make([]bool, total), w // another width: other rows
	}
	for i := max(0, top); i < min(total, top+n); i++ {
		a.seen[i] = true
	}
	a.page = n
}

// unseen is how many body rows have not been on screen.
func (a *approvals) unseen() int {
	n := 0
	for _, ok := range a.seen {
		if !ok {
			n++
		}
	}
	return n
}

func (a *approvals) current() *protocol.ApprovalRequest {
	if len(a.queue) == 0 {
		return nil
	}
	return &a.queue[0]
}

// accepting reports whether the grace period is over.
func (a *approvals) accepting(now time.Time) bool {
	return now.Sub(a.shownAt) >= a.grace
}

// confirming reports whether "for this session" waits for confirmation.
func (a *approvals) confirming() bool { return !a.confirmAt.IsZero() }

// modalKeys are the keys that, pressed first with the composer empty,
// take the focus: the answers and moving the highlight. Other letters
// (j, k) are the start of a sentence too often.
var modalKeys = map[string]bool{"y": true, "a": true, "n": true, "esc": true, "up": true, "down": true, "enter": true}

// takesFocus reports whether key k, pressed at now on an unfocused modal,
// is a deliberate act towards it: the first key since the request showed,
// past the grace period, one of the modal's keys, nothing being composed.
func (a *approvals) takesFocus(k string, now time.Time, composing bool) bool {
	return a.current() != nil && !a.typed && !composing && modalKeys[k] && a.accepting(now)
}

// approvalAction is what a key did to the modal.
type approvalAction int

const (
	// approvalPass: the key is not for the modal; it goes to the composer
	// and the modal gives up the focus.
	approvalPass approvalAction = iota
	// approvalHandled: the key moved the highlight or changed state.
	approvalHandled
	// approvalDecided: decision holds the answer for the shown request.
	approvalDecided
)

// key applies a key to the focused modal.
func (a *approvals) key(k string, now time.Time) (approvalAction, protocol.ReviewDecision) {
	if a.confirming() {
		switch {
		case is(k, approvalKeys.ConfirmSession):
			if !is(k, approvalKeys.Confirm) && a.confirmWith != protocol.DecisionApprovedForSession {
				return approvalHandled, "" // outside the sandbox: only enter confirms
			}
			if now.Sub(a.confirmAt) < a.grace {
				return approvalHandled, "" // typed straight through: not a confirmation
			}
			return approvalDecided, a.confirmWith
		case is(k, approvalKeys.Cancel):
			a.confirmAt, a.confirmWith = time.Time{}, ""
			return approvalHandled, ""
		}
		// Anything else is typing, not an answer: the question is dropped
		// and the key goes to the composer.
		a.confirmAt, a.confirmWith = time.Time{}, ""
		a.focused, a.typed = false, true
		return approvalPass, ""
	}
	k2 := approvalKeys
	choices := choicesFor(a.current())
	switch {
	case is(k, k2.Up):
		a.choice = (a.choice + len(choices) - 1) % len(choices)
		return approvalHandled, ""
	case is(k, k2.Down):
		a.choice = (a.choice + 1) % len(choices)
		return approvalHandled, ""
	case is(k, k2.Back):
		a.focused = false // back to the composer
		return approvalHandled, ""
	case is(k, k2.PageUp):
		a.scroll = max(0, a.scroll-max(1, a.page-1))
		return approvalHandled, ""
	case is(k, k2.PageDown):
		a.scroll += max(1, a.page-1) // a page, one row kept; the view clamps it
		return approvalHandled, ""
	case is(k, k2.Choose):
		if !a.accepting(now) {
			return approvalHandled, "" // on its way before the modal showed
		}
		return a.pick(a.choice, now)
	}
	for i, c := range choices {
		if c.shortcut == k {
			if !a.accepting(now) {
				return approvalHandled, ""
			}
			a.choice = i
			return a.pick(i, now)
		}
	}
	a.focused, a.typed = false, true
	return approvalPass, ""
}

// pick answers with option i. Approving for the session, or anything
// outside the sandbox, first asks for a confirmation.
func (a *approvals) pick(i int, now time.Time) (approvalAction, protocol.ReviewDecision) {
	d := choicesFor(a.current())[i].decision
	if d.Approved() && outsideSandbox(a.current()) && a.unseen() > 0 {
		a.unread = true // the whole command first
		return approvalHandled, ""
	}
	if d == protocol.DecisionApprovedForSession || d.Approved() && outsideSandbox(a.current()) {
		a.confirmAt, a.confirmWith = now, d
		return approvalHandled, ""
	}
	return approvalDecided, d
}

// outsideSandbox reports a request that would act past the sandbox: a
// command with none at all (an escalation, or a thread that has none), or
// a patch writing outside the writable roots (issue 35 item 17). It gets
// the red badge and a second key to approve.
func outsideSandbox(r *protocol.ApprovalRequest) bool {
	return r != nil && (r.Sandbox == protocol.SandboxDangerFullAccess || r.Kind == protocol.ApprovalPatch && len(r.Outside) > 0)
}

func approvalSummary(r protocol.ApprovalRequest) string {
	switch r.Kind {
	case protocol.ApprovalWorkingDir:
		return "work in " + r.Dir
	case protocol.ApprovalExec:
		return clip(r.Command, 80)
	}
	return strings.Join(r.Files, ", ")
}

// asker is the agent the shown request belongs to: the one that asks
// when it is known, else the thread the request is routed to (a sub-agent
// that does not exist yet asks through its parent).
func (a *approvals) asker(s *session) protocol.ThreadID {
	req := a.current()
	if req == nil {
		return ""
	}
	return askerOf(req, s)
}

// askerOf is the agent request req belongs to.
func askerOf(req *protocol.ApprovalRequest, s *session) protocol.ThreadID {
	if _, ok := s.threads[req.ThreadID]; ok {
		return req.ThreadID
	}
	if _, ok := s.threads[req.RouteThreadID]; ok {
		return req.RouteThreadID
	}
	return s.root
}

// waits reports whether agent id has a request waiting on the user.
func (a *approvals) waits(s *session, id protocol.ThreadID) bool {
	for i := range a.queue {
		if askerOf(&a.queue[i], s) == id {
			return true
		}
	}
	return false
}

// sameAs lists the queued requests identical to req in what they would
// run: kind, command or files, directory and sandbox.
func (a *approvals) sameAs(req protocol.ApprovalRequest) []protocol.ApprovalRequest {
	var out []protocol.ApprovalRequest
	for _, q := range a.queue {
		if req.MCP != nil {
			// The engine remembers an MCP tool by server and tool, not
			// arguments: every queued call of that tool is covered.
			if q.ID != req.ID && req.OffersSession() && q.MCP != nil && q.MCP.Server == req.MCP.Server && q.MCP.Tool == req.MCP.Tool {
				out = append(out, q)
			}
			continue
		}
		if q.ID != req.ID && q.Kind == req.Kind && q.Command == req.Command && q.Cwd == req.Cwd &&
			q.Sandbox == req.Sandbox && q.Dir == req.Dir && strings.Join(q.Files, "\x00") == strings.Join(req.Files, "\x00") && q.Patch == req.Patch {
			out = append(out, q)
		}
	}
	return out
}
