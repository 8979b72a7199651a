package tui

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// The approval modal in any height. What the user must read comes first
// and goes last: the question (with the red badge when the command runs
// outside the sandbox) and the command itself; then where it runs, in what
// sandbox and which agent asks; then how to answer; the reason and the
// rest of a long command fill what room is left (the command scrolls).

// modalParts are the modal's lines before the layout picks what fits.
type modalParts struct {
	title []string // one line: the question, badge, queue position
	body  []string // the command / files and diff / directory: scrollable
	info  []string // cwd, sandbox, agent: one line each
	why   []string // the reason, wrapped
	opts  []string // the options and the how-to-answer line
	short string   // the options on one line, for short windows
}

// modalLines renders the approval modal at most w wide and maxH tall.
func (r *renderer) modalLines(a *approvals, s *session, w, maxH int) []string {
	if a.current() == nil || maxH < 1 || w < 1 {
		return nil
	}
	border, inner, room := modalBox(w, maxH)
	p := r.modalParts(a, s, inner)
	lines := layoutModal(p, planModal(p, a, room), inner, r.th.dim.Render)
	for i, l := range lines {
		lines[i] = padRight(l, inner)
	}
	if !border {
		return lines
	}
	// lipgloss v2: the width includes the border and the padding.
	box := r.th.modal.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}

// modalBox is the modal's frame at most w×maxH: whether it has a border,
// its inner width and its rows for lines.
func modalBox(w, maxH int) (border bool, inner, room int) {
	boxW := min(w, 100)
	border = maxH >= 7 && boxW >= 24
	inner, room = boxW, maxH
	if border {
		inner, room = boxW-4, maxH-2 // double border and one column of padding each side
	}
	return border, inner, room
}

// modalWindow is the part of the request's body the modal shows at most
// w×maxH: its first row, how many rows, and how many there are.
func (r *renderer) modalWindow(a *approvals, s *session, w, maxH int) (top, rows, total int) {
	if a.current() == nil || maxH < 1 || w < 1 {
		return 0, 0, 0
	}
	_, inner, room := modalBox(w, maxH)
	p := r.modalParts(a, s, inner)
	pl := planModal(p, a, room)
	return pl.top, pl.bodyRows, len(p.body)
}

// modalPlan is how many rows of each part fit.
type modalPlan struct {
	bodyRows, top, info, why int
	fullOpts, shortOpts      bool
}

// planModal picks what fits in room rows: the title and the first body
// rows always, then the short options, the info lines, the first rows of
// the reason (why the agent asks must show), the full options, more of
// the body, and the rest of the reason.
func planModal(p modalParts, a *approvals, room int) modalPlan {
	var pl modalPlan
	if room <= 1 {
		return pl
	}
	left := room - 1 // the title
	pl.bodyRows = min(len(p.body), max(1, min(3, left-1)))
	left -= pl.bodyRows
	if left > 0 {
		pl.shortOpts, left = true, left-1
	}
	pl.info = min(len(p.info), max(0, left))
	left -= pl.info
	pl.why = min(len(p.why), 2, max(0, left))
	left -= pl.why
	if extra := len(p.opts) - 1; left >= extra && extra > 0 {
		pl.fullOpts, left = true, left-extra
	}
	more := min(len(p.body)-pl.bodyRows, max(0, left))
	pl.bodyRows, left = pl.bodyRows+more, left-more
	more = min(len(p.why)-pl.why, max(0, left))
	pl.why += more
	// The body window: scrolled by the user, clamped to what exists.
	pl.top = min(max(0, a.scroll), len(p.body)-pl.bodyRows)
	return pl
}

// layoutModal lays the planned lines out. When the body does not fit, the
// title starts with where the window is (↕1–4/83), so no width cuts it.
func layoutModal(p modalParts, pl modalPlan, inner int, dim func(...string) string) []string {
	if pl.bodyRows == 0 {
		return []string{clipANSI(p.title[0], inner)}
	}
	why := append([]string(nil), p.why[:pl.why]...)
	if n := len(why); n > 0 && n < len(p.why) {
		why[n-1] = clipANSI(why[n-1], inner-2) + dim(" …") // the reason goes on
	}
	body := p.body[pl.top : pl.top+pl.bodyRows]
	title := p.title[0]
	if pl.bodyRows < len(p.body) {
		title = dim(fmt.Sprintf("↕%d–%d/%d ", pl.top+1, pl.top+pl.bodyRows, len(p.body))) + title
	}
	out := []string{clipANSI(title, inner)}
	out = append(out, body...)
	out = append(out, p.info[:pl.info]...)
	out = append(out, why...)
	switch {
	case pl.fullOpts:
		out = append(out, p.opts...)
	case pl.shortOpts:
		out = append(out, p.short)
	}
	return out
}

// modalParts builds every line of the modal at width inner.
func (r *renderer) modalParts(a *approvals, s *session, inner int) modalParts {
	req := a.current()
	var p modalParts
	title := "Approval needed"
	switch req.Kind {
	case protocol.ApprovalWorkingDir:
		title = "Allow an agent to work in another directory?"
		if req.Host != "" {
			title = "Allow this project's agents to run on host " + req.Host + "?"
		}
	case protocol.ApprovalExec:
		title = "Allow this command?"
	case protocol.ApprovalPatch:
		title = "Allow these file changes?"
	}
	t := r.th.modalTitle.Render(title)
	if n := len(a.queue); n > 1 {
		t = r.th.dim.Render(fmt.Sprintf("(1 of %d) ", n)) + t
	}
	if outsideSandbox(req) {
		t = r.th.badge.Render(" outside the sandbox ") + " " + t
	}
	p.title = []string{t}
	p.body = r.modalBody(req, inner)
	cwd := req.Cwd
	if cwd == "" {
		if at := s.threads[req.ThreadID]; at != nil {
			cwd = at.info.Cwd
		}
	}
	p.info = append(p.info, r.th.dim.Render("cwd: ")+clip(cwd, inner-5))
	if l := r.sandboxLine(req, s, inner); l != "" {
		p.info = append(p.info, l)
	}
	p.info = append(p.info, r.th.dim.Render("asked by: ")+clip(askerLine(req, s), inner-10))
	if req.Reason != "" {
		for _, l := range wrap(req.Reason, inner) {
			p.why = append(p.why, r.th.dim.Render(l))
		}
	}
	p.opts = r.approvalOptions(a, inner)
	p.short = r.approvalShort(a, inner)
	return p
}

// modalBody is the scrollable part: the whole command, the files and
// their changed lines, or the directory.
func (r *renderer) modalBody(req *protocol.ApprovalRequest, inner int) []string {
	var body []string
	switch req.Kind {
	case protocol.ApprovalWorkingDir:
		what := "directory: " + req.Dir
		if req.Host != "" {
			what = "host: " + req.Host + " (named by a project template)"
		}
		for _, l := range wrap(what, inner) {
			body = append(body, r.th.cardTitle.Render(l))
		}
	case protocol.ApprovalExec:
		for _, l := range wrap("$ "+req.Command, inner) {
			body = append(body, r.th.cardTitle.Render(l))
		}
	case protocol.ApprovalPatch:
		for _, f := range req.Files {
			body = append(body, r.th.cardTitle.Render("• "+clip(f, inner-2)))
		}
		for _, l := range strings.Split(req.Patch, "\n") {
			switch {
			case strings.HasPrefix(l, "+"):
				body = append(body, r.th.done.Render(clip(l, inner)))
			case strings.HasPrefix(l, "-"):
				body = append(body, r.th.failed.Render(clip(l, inner)))
			}
		}
	}
	if len(body) == 0 {
		body = []string{r.th.dim.Render("(nothing to show)")}
	}
	return body
}

// sandboxLine says what the command may touch once approved ("" when
// there is nothing to say).
func (r *renderer) sandboxLine(req *protocol.ApprovalRequest, s *session, inner int) string {
	mode := req.Sandbox
	if mode == "" {
		if at := s.threads[req.ThreadID]; at != nil {
			mode = at.info.Sandbox.Mode
		}
	}
	if req.Kind == protocol.ApprovalPatch && outsideSandbox(req) {
		return r.th.dim.Render("sandbox: ") + r.th.errStyle.Render(clip("writes outside the writable roots", inner-9))
	}
	if outsideSandbox(req) {
		return r.th.dim.Render("sandbox: ") + r.th.errStyle.Render(clip("none (danger-full-access)", inner-9))
	}
	if mode == "" || req.Kind == protocol.ApprovalWorkingDir {
		return "" // not known, or not what is asked
	}
	return r.th.dim.Render("sandbox: ") + clip(string(mode), inner-9)
}

// askerLine names the agent that asks, with its role, and its path in
// the tree when it is not the root: "Euclid (worker) · root → Euclid".
func askerLine(req *protocol.ApprovalRequest, s *session) string {
	at := s.threads[req.ThreadID]
	if at == nil {
		if path := strings.Join(req.Chain, " → "); path != "" {
			return path
		}
		return "agent " + req.ThreadID.Short()
	}
	var chain []string
	for t, n := at, 0; t != nil && n < 64; t, n = s.threads[t.info.ParentID], n+1 {
		chain = append([]string{t.name()}, chain...)
	}
	line := at.fullName()
	if len(chain) > 1 {
		line += " · " + strings.Join(chain, " → ")
	}
	return line
}

// approvalOptions is the option list and the line that says how to answer;
// it tells the user plainly when their keys still go to the composer.
func (r *renderer) approvalOptions(a *approvals, inner int) []string {
	if a.confirming() {
		return r.confirmLines(a, inner)
	}
	var out []string
	for i, c := range choicesFor(a.current()) {
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
	return append(out, r.focusLine(a, inner))
}

// confirmLines ask for the second key.
func (r *renderer) confirmLines(a *approvals, inner int) []string {
	// Until its own grace ends, enter would not confirm: say so.
	wait := !a.listening(r.now())
	if a.confirmWith == protocol.DecisionApprovedForSession && !outsideSandbox(a.current()) {
		keys := r.th.key.Render("enter") + " yes, for the session  " + r.th.key.Render("esc") + " back"
		if wait {
			keys = "enter confirms in a moment  " + r.th.key.Render("esc") + " back"
		}
		return []string{r.th.warn.Render(clip("Approve this for the rest of the session?", inner)), clipANSI(keys, inner)}
	}
	q := "Run this OUTSIDE the sandbox?"
	switch {
	case a.current().Kind == protocol.ApprovalPatch && a.confirmWith == protocol.DecisionApprovedForSession:
		q = "Write outside the writable roots for the rest of the session?"
	case a.current().Kind == protocol.ApprovalPatch:
		q = "Write these files OUTSIDE the writable roots?"
	case a.confirmWith == protocol.DecisionApprovedForSession:
		q = "Run commands like this OUTSIDE the sandbox for the rest of the session?"
	}
	keys := r.th.key.Render("enter") + " yes, outside the sandbox  " + r.th.key.Render("esc") + " back · any other key: back to typing"
	if wait {
		keys = "enter confirms in a moment  " + r.th.key.Render("esc") + " back · any other key: back to typing"
	}
	return []string{r.th.errStyle.Render(clipANSI(q, inner)), clipANSI(keys, inner)}
}

// approvalShort is the options on one line (short windows).
func (r *renderer) approvalShort(a *approvals, inner int) string {
	if a.confirming() {
		l := r.confirmLines(a, inner)
		return clipANSI(l[0]+" "+l[1], inner)
	}
	if !a.focused {
		return r.focusLine(a, inner)
	}
	var parts []string
	for i, c := range choicesFor(a.current()) {
		part := c.shortcut + " " + c.word
		if i == a.choice {
			part = r.th.tableSel.Render("›" + part)
		}
		parts = append(parts, part)
	}
	keysHint := " · ↑↓ enter"
	if !a.listening(r.now()) {
		keysHint = " · in a moment"
	}
	return clipANSI(strings.Join(parts, " · ")+r.th.dim.Render(keysHint), inner)
}

// focusLine says where keys go now.
func (r *renderer) focusLine(a *approvals, inner int) string {
	if a.focused && a.unread && a.unseen() > 0 {
		return r.th.warn.Render(clip("read the whole command first: pgdn shows the "+plural(a.unseen(), "row")+" not seen yet", inner))
	}
	listening := a.listening(r.now())
	switch {
	case a.focused && !listening:
		return r.th.dim.Render(clip("↑↓ choose · answers open in a moment · tab back to typing", inner))
	case a.focused:
		return r.th.dim.Render(clip("↑↓ choose · enter answer · pgup/pgdn page · tab back to typing", inner))
	case !listening:
		return r.th.warn.Render(clip("typing goes to the composer · answers open in a moment", inner))
	}
	return r.th.warn.Render(clip("typing goes to the composer · tab to answer", inner))
}

// clipANSI cuts a styled line to n columns.
func clipANSI(s string, n int) string {
	if lipglossWidth(s) <= n {
		return s
	}
	return padRight(s, n)
}
