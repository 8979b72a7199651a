package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/grovecli/grove/protocol"
)

// The approval modal in any height. What the user must read comes first
// and goes last: the question (with the red badge when the command runs
// outside the sandbox) and the command itself; then where it runs, in what
// sandbox and which agent asks; then how to answer; the reason and the
// rest of a long command fill what room is left (the command scrolls).

// modalParts are the modal's lines before the layout picks what fits.
type modalParts struct {
	title []string // the badge, queue position and question, wrapped: never cut
	units []string // the title's words, for packing again with the window marker
	body  []string // the command / files and diff / directory: scrollable
	info  []string // cwd, sandbox, agent: one line each
	why   []string // the reason, wrapped
	opts  []string // the options and the how-to-answer line
	short []string // the options on one line (the confirm question wrapped), for short windows
}

// modalLines renders the approval modal at most w wide and maxH tall.
func (r *renderer) modalLines(a *approvals, s *session, w, maxH int) []string {
	if a.current() == nil || maxH < 1 || w < 1 {
		return nil
	}
	border, inner, room := modalBox(w, maxH)
	p := r.modalParts(a, s, inner)
	lines := layoutModal(p, planModal(&p, a, room, inner), inner, r.th.dim.Render)
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
	pl := planModal(&p, a, room, inner)
	return pl.top, pl.bodyRows, len(p.body)
}

// modalPlan is how many rows of each part fit.
type modalPlan struct {
	titleRows, bodyRows, top, info, why int
	fullOpts, shortOpts                 bool
}

// planModal picks what fits in room rows: the title and the first body
// rows always, then the short options, the info lines, the first rows of
// the reason (why the agent asks must show), the full options, more of
// the body, and the rest of the reason. When the body does not fit, the
// title leads with the window marker (↕1–4/83) and is packed again: first
// with the widest marker there can be, then with the marker of the plan
// until its rows settle; p.title is left as laid out.
func planModal(p *modalParts, a *approvals, room, inner int) modalPlan {
	pl := planRows(*p, a, room)
	if pl.bodyRows >= len(p.body) || room <= 1 {
		return pl
	}
	n := len(p.body)
	packed := func(pl modalPlan, widest bool) []string {
		m := fmt.Sprintf("↕%d–%d/%d", pl.top+1, pl.top+pl.bodyRows, n)
		switch {
		case widest:
			m = fmt.Sprintf("↕%d–%d/%d", n, n, n) // no window's marker is wider
		case pl.bodyRows == 0:
			m = fmt.Sprintf("↕%d rows", n)
		}
		return packUnits(append([]string{m}, p.units...), inner)
	}
	p.title = packed(pl, true)
	pl = planRows(*p, a, room)
	for range 3 { // a narrower marker may free a row for the body
		t := packed(pl, false)
		if len(t) == len(p.title) {
			break
		}
		p.title = t
		pl = planRows(*p, a, room)
	}
	if t := packed(pl, false); len(t) > pl.titleRows && len(t) < room {
		p.title = t
		pl = planRows(*p, a, room) // a wider marker took a body row
	}
	p.title = packed(pl, false)
	return pl
}

// planRows is planModal for the title as packed.
func planRows(p modalParts, a *approvals, room int) modalPlan {
	var pl modalPlan
	if room <= 1 {
		return pl
	}
	pl.titleRows = min(len(p.title), room-1)
	left := room - pl.titleRows
	pl.bodyRows = 1
	if a.confirming() && left-1 < len(p.short) {
		pl.bodyRows = 0 // the second key's question before the command (read by now)
	}
	left -= pl.bodyRows
	if left >= len(p.short) { // how to answer (or the second key's question) before more command
		pl.shortOpts, left = true, left-len(p.short)
	}
	more := min(len(p.body)-pl.bodyRows, 3-pl.bodyRows, max(0, left))
	pl.bodyRows, left = pl.bodyRows+more, left-more
	pl.info = min(len(p.info), max(0, left))
	left -= pl.info
	pl.why = min(len(p.why), 2, max(0, left))
	left -= pl.why
	if extra := len(p.opts) - len(p.short); pl.shortOpts && left >= extra && extra > 0 {
		pl.fullOpts, left = true, left-extra
	}
	more = min(len(p.body)-pl.bodyRows, max(0, left))
	pl.bodyRows, left = pl.bodyRows+more, left-more
	more = min(len(p.why)-pl.why, max(0, left))
	pl.why += more
	// The body window: scrolled by the user, clamped to what exists.
	pl.top = min(max(0, a.scroll), len(p.body)-pl.bodyRows)
	return pl
}

// layoutModal lays the planned lines out. When the body does not fit, the
// title starts with where the window is (↕1–4/83); the title wraps, so no
// width cuts the question or the marker.
func layoutModal(p modalParts, pl modalPlan, inner int, dim func(...string) string) []string {
	if pl.titleRows == 0 {
		return []string{clipANSI(p.title[0], inner)}
	}
	why := append([]string(nil), p.why[:pl.why]...)
	if n := len(why); n > 0 && n < len(p.why) {
		why[n-1] = clipANSI(why[n-1], inner-2) + dim(" …") // the reason goes on
	}
	body := p.body[pl.top : pl.top+pl.bodyRows]
	out := append([]string(nil), p.title[:min(len(p.title), pl.titleRows)]...)
	out = append(out, body...)
	out = append(out, p.info[:pl.info]...)
	out = append(out, why...)
	switch {
	case pl.fullOpts:
		out = append(out, p.opts...)
	case pl.shortOpts:
		out = append(out, p.short...)
	}
	return out
}

// packUnits lays styled words out on lines at most w wide, a space
// between two on a line; a word wider than w is broken.
func packUnits(units []string, w int) []string {
	var lines []string
	cur, curW := "", 0
	for _, u := range units {
		uw := lipglossWidth(u)
		switch {
		case curW > 0 && curW+1+uw <= w:
			cur, curW = cur+" "+u, curW+1+uw
			continue
		case curW > 0:
			lines = append(lines, cur)
		}
		parts := strings.Split(ansi.Hardwrap(u, max(1, w), false), "\n")
		lines = append(lines, parts[:len(parts)-1]...)
		cur = parts[len(parts)-1]
		curW = lipglossWidth(cur)
	}
	return append(lines, cur)
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
	if outsideSandbox(req) {
		p.units = append(p.units, r.th.badge.Render(" outside the sandbox "))
	}
	if n := len(a.queue); n > 1 {
		p.units = append(p.units, r.th.dim.Render(fmt.Sprintf("(1 of %d)", n)))
	}
	for _, word := range strings.Fields(title) {
		p.units = append(p.units, r.th.modalTitle.Render(word))
	}
	p.title = packUnits(p.units, inner)
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
		return append(r.wrapStyled(r.th.warn, "Approve this for the rest of the session?", inner), clipANSI(keys, inner))
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
	return append(r.wrapStyled(r.th.errStyle, q, inner), clipANSI(keys, inner))
}

// wrapStyled wraps a question to width w, each line in style st: a
// question is never cut.
func (r *renderer) wrapStyled(st lipgloss.Style, q string, w int) []string {
	var out []string
	for _, l := range wrap(q, w) {
		out = append(out, st.Render(l))
	}
	return out
}

// approvalShort is the options on one line (short windows); the second
// key's question keeps its whole text, wrapped, with the keys after it.
func (r *renderer) approvalShort(a *approvals, inner int) []string {
	if a.confirming() {
		l := r.confirmLines(a, inner)
		last := len(l) - 1
		return append(l[:last:last], clipANSI(l[last], inner))
	}
	if !a.focused {
		return []string{r.focusLine(a, inner)}
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
	return []string{clipANSI(strings.Join(parts, " · ")+r.th.dim.Render(keysHint), inner)}
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
