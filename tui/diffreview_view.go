package tui

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

// reviewRow is one line of the review's content, laid out before it is
// drawn: only the rows on screen are rendered (a long session has
// thousands).
type reviewRow struct {
	kind byte // ' ' blank, 'a' agent, 'f' file, 'h' hunk header, 'l' diff line
	h    int  // the hunk (of the agent or file, for their rows)
	line int  // the diff line of a 'l' row
}

// reviewRows lays out the hunks and returns the row each hunk's header is on.
func (m Model) reviewRows(hs []reviewHunk) (rows []reviewRow, at []int) {
	for i, h := range hs {
		if i == 0 || h.p.thread != hs[i-1].p.thread {
			if i > 0 {
				rows = append(rows, reviewRow{kind: ' '})
			}
			rows = append(rows, reviewRow{kind: 'a', h: i})
		}
		if i == 0 || !h.sameFile(hs[i-1]) {
			rows = append(rows, reviewRow{kind: 'f', h: i})
		}
		at = append(at, len(rows))
		rows = append(rows, reviewRow{kind: 'h', h: i})
		if m.review.collapsed[h.key()] {
			continue
		}
		for j := range hunkLen(h.fp(), h.hunk) {
			rows = append(rows, reviewRow{kind: 'l', h: i, line: j})
		}
	}
	return rows, at
}

// reviewLine draws one row at width w.
func (m Model) reviewLine(hs []reviewHunk, r reviewRow, w int) string {
	h := hs[r.h]
	f := h.fp()
	switch r.kind {
	case 'a':
		return m.reviewAgentLine(h.p.thread, w)
	case 'f':
		add, del := 0, 0
		for hi := range hunkCount(f) {
			a, d := hunkCounts(f, hi)
			add, del = add+a, del+d
		}
		return "  " + m.r.patchFileTitle(fileOp(f), filePath(f), add, del, w-2)
	case 'h':
		return m.reviewHunkLine(h, r.h == m.review.sel, w)
	case 'l':
		dl := hunkLines(f, h.hunk)[r.line]
		if m.sess.review.reverted[h.key()] {
			return "      " + m.th.dim.Render(clipKeep(dl, w-6))
		}
		return "      " + m.r.diffLine(dl, w-6)
	}
	return ""
}

// reviewAgentLine names the agent of a group and its path in the tree.
func (m Model) reviewAgentLine(id protocol.ThreadID, w int) string {
	t := m.sess.threads[id]
	if t == nil {
		return m.th.paneTitle.Render(clip("agent "+id.Short(), w))
	}
	var path []string
	for cur := t; cur != nil; cur = m.sess.threads[cur.info.ParentID] {
		path = append([]string{cur.name()}, path...)
		if cur.info.ParentID == "" {
			break
		}
	}
	name := t.fullName()
	line := m.th.paneTitle.Render(clip(name, w))
	if len(path) > 1 {
		line += "  " + m.th.dim.Render(clip(strings.Join(path, " › "), max(1, w-lipglossWidth(name)-2)))
	}
	return line
}

// reviewHunkLine is a hunk's header: where it is, its counts and what the
// user did with it.
func (m Model) reviewHunkLine(h reviewHunk, selected bool, w int) string {
	f := h.fp()
	where := "@@"
	switch {
	case len(f.Hunks) > h.hunk && f.Hunks[h.hunk].Header != "":
		where = "@@ " + f.Hunks[h.hunk].Header
	case f.Op == patch.OpAdd:
		where = "new file"
	case f.Op == patch.OpDelete:
		where = "deleted"
	}
	add, del := hunkCounts(f, h.hunk)
	mark := ""
	switch l := m.sess.review; {
	case l.reverted[h.key()]:
		mark = m.th.warn.Render(" ↶ reverted")
	case l.accepted[h.key()]:
		mark = m.th.done.Render(" ✓ accepted")
	}
	counts := m.th.done.Render(fmt.Sprintf("+%d", add)) + " " + m.th.failed.Render(fmt.Sprintf("-%d", del))
	if f.Op == patch.OpDelete {
		counts = m.th.failed.Render("(content not recorded)")
	}
	fold := "▾"
	if m.review.collapsed[h.key()] {
		fold = "▸"
	}
	text := fmt.Sprintf("%s hunk %d/%d %s", fold, h.hunk+1, hunkCount(f), where)
	room := max(1, w-4-lipglossWidth(counts)-lipglossWidth(mark)-1)
	if selected {
		return m.th.tableSel.Render("  › "+clip(text, room)) + " " + counts + mark
	}
	return "    " + m.th.dim.Render(clip(text, room)) + " " + counts + mark
}

// reviewView is the review screen in w×h: a title, the hunks (scrolled
// to the selection) and a footer with the keys, a confirmation or the
// last result.
func (m Model) reviewView(w, h int) []string {
	rv := m.review
	hs, rows, at := m.reviewLayout()
	rv.sel = min(rv.sel, max(0, len(hs)-1))
	head := []string{m.reviewTitle(hs, w)}
	if h >= 8 {
		head = append(head, m.th.dim.Render(clip("only apply_patch changes are listed; files changed by commands are not", w)))
	}
	foot := m.reviewFooter(w)
	room := max(0, h-len(head)-len(foot))
	var body []string
	if len(hs) == 0 {
		body = []string{"", m.th.dim.Render(clip(m.reviewEmpty(), w))}
	} else {
		top := rv.scroll
		if top < 0 {
			top = m.reviewAnchor(room)
		}
		top = min(top, max(0, len(rows)-room))
		for _, r := range rows[top:min(len(rows), top+room)] {
			body = append(body, m.reviewLine(hs, r, w))
		}
		// The selected hunk's agent and file stay named when their lines
		// scrolled off.
		if cur := hs[rv.sel]; room > 2 && top > agentLineOf(hs, at, rv.sel) {
			sticky := m.sess.nameOf(cur.p.thread)
			if top > fileLineOf(hs, at, rv.sel) {
				sticky += " · " + fileOp(cur.fp()) + " " + filePath(cur.fp())
			}
			body = append([]string{m.th.dim.Render(clip(sticky, w))}, body...)
		}
	}
	out := append(head, fit(body, w, room)...)
	return append(out, foot...)
}

// reviewAnchor is the first line that keeps the selected hunk in view in
// h rows: its header a third of the way down, its lines below as they fit.
func (m Model) reviewAnchor(h int) int {
	hs, rows, at := m.reviewLayout()
	if len(hs) == 0 {
		return 0
	}
	sel := at[min(m.review.sel, len(at)-1)]
	end := len(rows)
	if m.review.sel+1 < len(at) {
		end = at[m.review.sel+1]
	}
	top := max(0, sel-h/3)
	if end-top > h {
		top = max(0, min(sel, end-h)) // a long hunk: its header first
	}
	return top
}

func (m Model) reviewTitle(hs []reviewHunk, w int) string {
	scope, other := "this turn", "t: whole session"
	if m.review.whole {
		scope, other = "whole session", "t: this turn"
	}
	l := m.review.layout
	files, add, del := l.files, l.add, l.del
	reverted, accepted := 0, 0
	for _, h := range hs {
		if m.sess.review.reverted[h.key()] {
			reverted++
		} else if m.sess.review.accepted[h.key()] {
			accepted++
		}
	}
	title := m.th.paneTitle.Render("Diff review") + m.th.dim.Render(" · "+scope)
	stats := " · " + plural(files, "file") + " " + plural(len(hs), "hunk") + " " + m.th.done.Render(fmt.Sprintf("+%d", add)) + " " + m.th.failed.Render(fmt.Sprintf("-%d", del))
	if reverted+accepted > 0 {
		stats += m.th.dim.Render(fmt.Sprintf(" · %d reverted · %d accepted", reverted, accepted))
	}
	right := m.th.dim.Render(other)
	line := title + stats
	if gap := w - lipglossWidth(line) - lipglossWidth(right); gap >= 2 {
		return line + strings.Repeat(" ", gap) + right
	}
	return line
}

func (m Model) reviewEmpty() string {
	switch {
	case len(m.sess.review.patches) == 0:
		return "no patches: the agents applied none in this session"
	case m.review.whole:
		return "no patches"
	}
	return "no patches in this turn · t shows the whole session"
}

// reviewFooter is the confirmation, the last result, or the keys.
func (m Model) reviewFooter(w int) []string {
	rv := m.review
	k := m.th.key.Render
	switch {
	case rv.confirm != nil:
		return []string{m.th.errStyle.Render(clip("revert "+rv.confirmWhat+" on disk?", max(1, w-22))) + "  " + k("y/enter") + " revert  " + k("n/esc") + " keep"}
	case rv.msg != "" && rv.msgErr:
		// An error says what to do: up to three lines of it.
		var out []string
		for _, l := range wrap(rv.msg, max(1, w)) {
			if len(out) < 3 {
				out = append(out, m.th.errStyle.Render(l))
			}
		}
		return out
	case rv.msg != "":
		return []string{m.th.warn.Render(clip(rv.msg, w))}
	}
	return []string{k("↑↓") + " hunk  " + k("←→") + " file  " + k("enter") + " fold  " + k("a") + " accept  " + k("r") + " revert  " + k("A/R") + " file  " + k("t") + " scope  " + k("esc") + " back"}
}

// fileLineOf is the line of the file title above hunk i: the line before
// its file's first hunk.
func fileLineOf(hs []reviewHunk, at []int, i int) int {
	for i > 0 && hs[i-1].sameFile(hs[i]) {
		i--
	}
	return at[i] - 1
}

// agentLineOf is the line of the agent title above hunk i.
func agentLineOf(hs []reviewHunk, at []int, i int) int {
	for i > 0 && hs[i-1].p.thread == hs[i].p.thread {
		i--
	}
	return at[i] - 2
}
