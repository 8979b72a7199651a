package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
)

// approvalGrace swallows key presses right after a modal appears, so a
// keystroke meant for the composer cannot approve anything.
const approvalGrace = 400 * time.Millisecond

// approvals is the queue of pending requests; the first is shown.
type approvals struct {
	queue   []protocol.ApprovalRequest
	shownAt time.Time
	grace   time.Duration
}

func (a *approvals) push(r protocol.ApprovalRequest, now time.Time) {
	for _, q := range a.queue {
		if q.ID == r.ID {
			return
		}
	}
	if len(a.queue) == 0 {
		a.shownAt = now
	}
	a.queue = append(a.queue, r)
}

func (a *approvals) remove(id string, now time.Time) {
	for i, q := range a.queue {
		if q.ID == id {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			if i == 0 {
				a.shownAt = now
			}
			return
		}
	}
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

// decisionFor maps a key to a decision.
func decisionFor(key string) (protocol.ReviewDecision, bool) {
	switch key {
	case "y":
		return protocol.DecisionApproved, true
	case "a":
		return protocol.DecisionApprovedForSession, true
	case "n":
		return protocol.DecisionDenied, true
	case "esc", "x":
		return protocol.DecisionAbort, true
	}
	return "", false
}

// modalLines renders the approval modal.
func (r *renderer) modalLines(a *approvals, w int, now time.Time) []string {
	req := a.current()
	inner := max(20, w-4)
	var b []string
	title := "Approval needed"
	switch req.Kind {
	case protocol.ApprovalWorkingDir:
		title = "Allow a sub-agent to work in another directory?"
	case protocol.ApprovalExec:
		title = "Allow this command?"
	case protocol.ApprovalPatch:
		title = "Allow these file changes?"
	}
	count := ""
	if n := len(a.queue); n > 1 {
		count = fmt.Sprintf("  (1 of %d)", n)
	}
	b = append(b, r.th.modalTitle.Render(title)+r.th.dim.Render(count))
	if len(req.Chain) > 0 {
		b = append(b, r.th.dim.Render("asked by ")+clip(strings.Join(req.Chain, " → "), inner-9))
	}
	b = append(b, "")
	switch req.Kind {
	case protocol.ApprovalWorkingDir:
		b = append(b, "directory: "+r.th.cardTitle.Render(clip(req.Dir, inner-11)))
		if req.Cwd != "" {
			b = append(b, r.th.dim.Render("instead of: "+clip(req.Cwd, inner-12)))
		}
	case protocol.ApprovalExec:
		for _, l := range wrap("$ "+req.Command, inner) {
			b = append(b, r.th.cardTitle.Render(l))
		}
		b = append(b, r.th.dim.Render("in "+clip(req.Cwd, inner-3)))
	case protocol.ApprovalPatch:
		for _, f := range req.Files {
			b = append(b, "• "+clip(f, inner-2))
		}
		var diff []string
		for _, l := range strings.Split(req.Patch, "\n") {
			if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
				diff = append(diff, l)
			}
		}
		for i, l := range diff {
			if i == 8 {
				b = append(b, r.th.dim.Render(fmt.Sprintf("… %d more changed lines", len(diff)-8)))
				break
			}
			style := r.th.done
			if strings.HasPrefix(l, "-") {
				style = r.th.failed
			}
			b = append(b, style.Render(clip(l, inner)))
		}
	}
	if req.Reason != "" {
		b = append(b, "")
		for _, l := range wrap(req.Reason, inner) {
			b = append(b, r.th.dim.Render(l))
		}
	}
	b = append(b, "")
	keys := r.th.key.Render("y") + " approve  " + r.th.key.Render("a") + " approve for session  " + r.th.key.Render("n") + " deny  " + r.th.key.Render("esc") + " abort turn"
	if !a.accepting(now) {
		keys = r.th.keyDim.Render("y approve  a approve for session  n deny  esc abort turn")
	}
	b = append(b, keys)
	box := r.th.modal.Width(min(w, 100)).Render(strings.Join(b, "\n"))
	return strings.Split(box, "\n")
}
