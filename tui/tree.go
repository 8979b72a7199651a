package tui

import (
	"fmt"
	"time"

	"github.com/grovecli/grove/protocol"
)

func (m Model) treeLines(w, h int) []string {
	lines, _ := m.treeRows(w, h)
	return lines
}

// treeRows renders the tree and reports which thread each row shows
// ("" for the title; an agent's note rows are its own), for mouse clicks.
func (m Model) treeRows(w, h int) ([]string, []protocol.ThreadID) {
	order := m.sess.treeOrder()
	lines := []string{""} // the title, once what is cut is known
	ids := []protocol.ThreadID{""}
	last := -1 // the last agent whose row is drawn
	now := m.now()
	start := treeStart(order, m.selected, h-1, func(id protocol.ThreadID) int {
		return len(m.treeDetail(m.sess.threads[id])) + 1
	})
	for i, id := range order {
		if i < start {
			continue
		}
		if len(lines) >= h {
			break // only what fits is drawn
		}
		t := m.sess.threads[id]
		indent := squeezeIndent(m.treePrefix(t), max(4, w/4))
		elapsed := formatElapsed(t, now)
		glyph := m.r.threadGlyph(t)
		label := m.askBadge(id) + t.fullName() + hostBadge(t.info) + t.unreadBadge()
		switch {
		case i == m.selected && m.area == focusTree:
			lines = append(lines, m.th.treeSel.Render(padRight(ansiStrip(m.treeRow(indent, glyph, label, elapsed, w)), w)))
		case id == m.focused:
			lines = append(lines, m.th.treeSelBlur.Render(m.treeRow(indent, glyph, label, elapsed, w)))
		default:
			lines = append(lines, m.cachedTreeRow(t, indent, glyph, label, elapsed, w))
		}
		ids = append(ids, id)
		last = i
		for _, detail := range m.treeDetail(t) {
			sub := squeezeIndent(m.treeContinuation(t)+"  ", max(4, w/4))
			c := &t.rowCache
			if c.detail != detail || c.detailSub != sub || c.detailW != w {
				c.detail, c.detailSub, c.detailW = detail, sub, w
				c.detailLine = m.th.treeDim.Render(padRight(sub+clip(detail, max(4, w-lipglossWidth(sub))), w))
			}
			lines = append(lines, c.detailLine)
			ids = append(ids, id) // a click on the note focuses its agent
		}
	}
	lines[0] = m.treeTitle(len(order), start, len(order)-1-last, w)
	return lines, ids
}

// treeTitle is "agents N", with how many agents are scrolled off above
// and below when the tree is longer than its pane (issue 35 item 27).
func (m Model) treeTitle(n, above, below, w int) string {
	title := m.th.paneTitle.Render("agents") + m.th.dim.Render(fmt.Sprintf(" %d", n))
	var more string
	if above > 0 {
		more += fmt.Sprintf(" ↑%d", above)
	}
	if below > 0 {
		more += fmt.Sprintf(" ↓%d", below)
	}
	if more == "" {
		return title
	}
	if long := " ·" + more + " more"; lipglossWidth(title)+lipglossWidth(long) <= w {
		more = long
	}
	return title + " " + m.th.dim.Render(clip(more, max(0, w-lipglossWidth(title)-1)))
}

// treeRow is an agent's row: guides, glyph, label, and the elapsed time
// at the right edge.
func (m Model) treeRow(indent, glyph, label, elapsed string, w int) string {
	right := m.th.dim.Render(elapsed)
	return padRight(indent+glyph+" "+label, w-lipglossWidth(right)-1) + " " + right
}

// treeRowCache keeps the parts of an agent's row that change rarely, so a
// frame (where spinners turn for every running agent) only joins them.
type treeRowCache struct {
	indent, label, elapsed string
	w, glyphW              int
	closed                 bool
	pre, post              string // styled indent; styled label, padding, elapsed

	detail, detailSub, detailLine string
	detailW                       int
}

// cachedTreeRow is treeRow in the thread's style, with the glyph joined
// to cached parts. A label too long for the row takes the full path (it
// is cut with an ellipsis there).
func (m Model) cachedTreeRow(t *threadView, indent, glyph, label, elapsed string, w int) string {
	style := m.th.assistant
	if t.closed {
		style = m.th.closed
	}
	c := &t.rowCache
	gw := lipglossWidth(glyph)
	if c.indent != indent || c.label != label || c.elapsed != elapsed || c.w != w || c.glyphW != gw || c.closed != t.closed {
		*c = treeRowCache{indent: indent, label: label, elapsed: elapsed, w: w, glyphW: gw, closed: t.closed,
			detail: c.detail, detailSub: c.detailSub, detailLine: c.detailLine, detailW: c.detailW}
		right := m.th.dim.Render(elapsed)
		room := w - lipglossWidth(right) - 1 - lipglossWidth(indent) - gw
		rest := " " + label
		if lipglossWidth(rest) > room {
			c.pre, c.post = "", "" // cut: no fast path
		} else {
			c.pre = style.Render(indent)
			c.post = style.Render(padRight(rest, room) + " " + right)
		}
	}
	if c.post == "" {
		return style.Render(m.treeRow(indent, glyph, label, elapsed, w))
	}
	return c.pre + style.Render(glyph) + c.post
}

// treeDetail is the dim rows under an agent: its note (the root has
// none), then a row per session it left running (ps.go).
func (m Model) treeDetail(t *threadView) []string {
	if t == nil {
		return nil
	}
	var out []string
	if note := t.note(); note != "" && t.info.Depth > 0 {
		out = append(out, note)
	}
	return append(out, m.sessionRows(t.info.ID)...)
}

// treeStart is the first agent to draw so that the selected one is on
// screen: agents take rows(id) rows each and rows rows are available. It
// starts at the top while the selection fits there, else it ends the
// window on the selection.
func treeStart(order []protocol.ThreadID, selected, rows int, height func(protocol.ThreadID) int) int {
	if selected >= len(order) {
		selected = len(order) - 1
	}
	used := 0
	for i := 0; i <= selected; i++ {
		used += height(order[i])
	}
	if used <= rows {
		return 0
	}
	start, used := selected, height(order[selected])
	for start > 0 && used+height(order[start-1]) <= rows {
		start--
		used += height(order[start])
	}
	return start
}

// treePrefix draws the tree guides (├ └ │) in front of a node.
func (m Model) treePrefix(t *threadView) string {
	if t.info.ParentID == "" {
		return ""
	}
	guide := "├ "
	if m.isLastChild(t) {
		guide = "└ "
	}
	if p := m.sess.threads[t.info.ParentID]; p != nil {
		return m.treeContinuation(p) + guide
	}
	return guide
}

// treeContinuation is the guide column below a node (for its children).
func (m Model) treeContinuation(t *threadView) string {
	if t == nil || t.info.ParentID == "" {
		return ""
	}
	p := m.sess.threads[t.info.ParentID]
	bar := "│ "
	if m.isLastChild(t) {
		bar = "  "
	}
	return m.treeContinuation(p) + bar
}

func (m Model) isLastChild(t *threadView) bool {
	p := m.sess.threads[t.info.ParentID]
	return p == nil || len(p.children) == 0 || p.children[len(p.children)-1] == t.info.ID
}

// elapsed is how long the current (or last) turn ran; ok is false when
// that is unknown (a resumed session's threads).
func elapsed(t *threadView, now time.Time) (d time.Duration, ok bool) {
	if t.turnAt.IsZero() {
		return 0, false
	}
	end := now
	if !t.status.IsActive() {
		if t.statusAt.IsZero() {
			return 0, false
		}
		end = t.statusAt
	}
	return max(0, end.Sub(t.turnAt)), true
}

// formatElapsed renders elapsed as m:ss or hhmm; blank when unknown.
func formatElapsed(t *threadView, now time.Time) string {
	d, ok := elapsed(t, now)
	if !ok {
		return ""
	}
	if d < time.Hour {
		return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02d", int(d.Hours()), int(d.Minutes())%60)
}

// squeezeIndent keeps a deep agent's guides to n columns ("…" and the
// nearest levels), so at 80 columns the label still has room; the guides
// are one column a rune.
func squeezeIndent(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
