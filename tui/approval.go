package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
)

// A modal must never take an answer from keys meant for the composer: a
// person typing "yes, and…" as a request pops up would otherwise approve it.
// So the modal only listens once it has the input focus, and it takes the
// focus only on a deliberate act: tab, or any key after the user has stopped
// typing for approvalQuiet while the composer is empty.
const (
	// approvalGrace swallows answers right after a modal (or the session
	// confirmation) appears, so a key already on its way cannot answer it.
	approvalGrace = 400 * time.Millisecond
	// approvalQuiet is how long the keyboard must have been idle before a
	// key may go to the modal on its own.
	approvalQuiet = time.Second
)

// approvalChoice is one line of the modal's option list.
type approvalChoice struct {
	decision protocol.ReviewDecision
	shortcut string
	label    string
}

var approvalChoices = []approvalChoice{
	{protocol.DecisionApproved, "y", "Yes, this once"},
	{protocol.DecisionApprovedForSession, "a", "Yes, and don't ask again this session"},
	{protocol.DecisionDenied, "n", "No"},
	{protocol.DecisionAbort, "esc", "No, and stop the turn"},
}

// approvals is the queue of pending requests; the first is shown.
type approvals struct {
	queue   []protocol.ApprovalRequest
	shownAt time.Time
	grace   time.Duration
	quiet   time.Duration
	// focused: keys go to the modal instead of the composer.
	focused bool
	// choice is the highlighted option.
	choice int
	// confirmAt is when "for this session" was chosen and now waits for
	// its confirmation (zero: not confirming).
	confirmAt time.Time
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
	a.focused = false
	a.choice = 0
	a.confirmAt = time.Time{}
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

// mayTakeFocus reports whether a key pressed at now, after an idle keyboard
// since lastKey, is a deliberate act towards the modal: the modal has been
// up past its grace period, the user was not typing, and nothing is being
// composed.
func (a *approvals) mayTakeFocus(now, lastKey time.Time, composing bool) bool {
	return a.current() != nil && a.accepting(now) && !composing && now.Sub(lastKey) >= a.quiet
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
		switch k {
		case "enter", "y":
			if now.Sub(a.confirmAt) < a.grace {
				return approvalHandled, "" // typed straight through: not a confirmation
			}
			return approvalDecided, protocol.DecisionApprovedForSession
		case "esc", "n", "backspace", "left":
			a.confirmAt = time.Time{}
			return approvalHandled, ""
		}
		return approvalHandled, "" // only an explicit answer leaves the question
	}
	switch k {
	case "up", "k", "shift+tab":
		a.choice = (a.choice + len(approvalChoices) - 1) % len(approvalChoices)
		return approvalHandled, ""
	case "down", "j":
		a.choice = (a.choice + 1) % len(approvalChoices)
		return approvalHandled, ""
	case "tab":
		a.focused = false // back to the composer
		return approvalHandled, ""
	case "enter":
		if !a.accepting(now) {
			return approvalHandled, "" // on its way before the modal showed
		}
		return a.pick(a.choice, now)
	}
	for i, c := range approvalChoices {
		if c.shortcut == k {
			if !a.accepting(now) {
				return approvalHandled, ""
			}
			a.choice = i
			return a.pick(i, now)
		}
	}
	a.focused = false
	return approvalPass, ""
}

// pick answers with option i; "for this session" first asks to confirm.
func (a *approvals) pick(i int, now time.Time) (approvalAction, protocol.ReviewDecision) {
	d := approvalChoices[i].decision
	if d == protocol.DecisionApprovedForSession {
		a.confirmAt = now
		return approvalHandled, ""
	}
	return approvalDecided, d
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

// asker is the thread whose transcript stays visible above the modal: the
// one that asks when it is known, else the thread the request is routed to
// (a sub-agent that does not exist yet asks through its parent).
func (a *approvals) asker(s *session) protocol.ThreadID {
	req := a.current()
	if req == nil {
		return ""
	}
	if _, ok := s.threads[req.ThreadID]; ok {
		return req.ThreadID
	}
	if _, ok := s.threads[req.RouteThreadID]; ok {
		return req.RouteThreadID
	}
	return s.root
}

// modalLines renders the approval modal, at most w wide and maxH tall (the
// body is cut first, the question and options always show).
func (r *renderer) modalLines(a *approvals, w, maxH int) []string {
	req := a.current()
	inner := max(20, w-4)
	title := "Approval needed"
	switch req.Kind {
	case protocol.ApprovalWorkingDir:
		title = "Allow an agent to work in another directory?"
	case protocol.ApprovalExec:
		title = "Allow this command?"
	case protocol.ApprovalPatch:
		title = "Allow these file changes?"
	}
	head := []string{r.th.modalTitle.Render(title)}
	if n := len(a.queue); n > 1 {
		count := r.th.dim.Render(fmt.Sprintf("(1 of %d)", n))
		if lipglossWidth(head[0])+2+lipglossWidth(count) <= inner {
			head[0] += "  " + count
		} else {
			head = append(head, count)
		}
	}
	if len(req.Chain) > 0 {
		head = append(head, r.th.dim.Render("asked by ")+clip(strings.Join(req.Chain, " → "), inner-9))
	}
	var body []string
	switch req.Kind {
	case protocol.ApprovalWorkingDir:
		body = append(body, "directory: "+r.th.cardTitle.Render(clip(req.Dir, inner-11)))
		if req.Cwd != "" {
			body = append(body, r.th.dim.Render("instead of: "+clip(req.Cwd, inner-12)))
		}
	case protocol.ApprovalExec:
		for _, l := range wrap("$ "+req.Command, inner) {
			body = append(body, r.th.cardTitle.Render(l))
		}
		body = append(body, r.th.dim.Render("in "+clip(req.Cwd, inner-3)))
	case protocol.ApprovalPatch:
		for _, f := range req.Files {
			body = append(body, "• "+clip(f, inner-2))
		}
		var diff []string
		for _, l := range strings.Split(req.Patch, "\n") {
			if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
				diff = append(diff, l)
			}
		}
		for i, l := range diff {
			if i == 8 {
				body = append(body, r.th.dim.Render(fmt.Sprintf("… %d more changed lines", len(diff)-8)))
				break
			}
			style := r.th.done
			if strings.HasPrefix(l, "-") {
				style = r.th.failed
			}
			body = append(body, style.Render(clip(l, inner)))
		}
	}
	if req.Reason != "" {
		for _, l := range wrap(req.Reason, inner) {
			body = append(body, r.th.dim.Render(l))
		}
	}
	foot := r.approvalOptions(a, inner)
	// Borders take 2 rows; keep the head and the options, cut the body.
	if room := maxH - 2 - len(head) - len(foot); len(body) > room {
		body = body[:max(0, room-1)]
		body = append(body, r.th.dim.Render("…"))
		if room <= 0 {
			body = nil
		}
	}
	all := append(append(head, body...), foot...)
	box := r.th.modal.Width(min(w, 100)).Render(strings.Join(all, "\n"))
	return strings.Split(box, "\n")
}

// approvalOptions is the option list and the line that says how to answer;
// it tells the user plainly when their keys still go to the composer.
func (r *renderer) approvalOptions(a *approvals, inner int) []string {
	if a.confirming() {
		return []string{
			r.th.warn.Render("Approve this for the rest of the session?"),
			r.th.key.Render("enter") + " yes, for the session  " + r.th.key.Render("esc") + " back",
		}
	}
	var out []string
	for i, c := range approvalChoices {
		label := fmt.Sprintf("%-4s", c.shortcut) + clip(c.label, inner-6)
		switch {
		case a.focused && i == a.choice:
			out = append(out, r.th.tableSel.Render("› "+label))
		case a.focused:
			out = append(out, "  "+label)
		default:
			out = append(out, r.th.keyDim.Render("  "+label))
		}
	}
	if a.focused {
		return append(out, r.th.dim.Render(clip("↑↓ choose · enter answer · tab back to typing", inner)))
	}
	return append(out, r.th.warn.Render(clip("typing goes to the composer · tab to answer", inner)))
}
