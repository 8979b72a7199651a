package tui

// Tool-call focus: alt+↑/alt+↓ move a highlight between the focused
// transcript's tool calls (scrolling it into view) and ctrl+o expands or
// collapses the highlighted call, or the last one when none is.

// toolEntries are the indexes of t's tool-call entries, oldest first.
func toolEntries(t *threadView) []int {
	var out []int
	for i, e := range t.entries {
		if e.kind == entryTool {
			out = append(out, i)
		}
	}
	return out
}

// selectedTool is the highlighted call of t, or nil.
func selectedTool(t *threadView) *entry {
	if t.toolSel < 0 || t.toolSel >= len(t.entries) {
		return nil
	}
	return t.entries[t.toolSel]
}

// moveToolFocus moves the highlight dir calls (−1 older, +1 newer); from
// no highlight, older starts at the newest call.
func (m *Model) moveToolFocus(dir int) {
	t := m.sess.threads[m.focused]
	if t == nil {
		return
	}
	idx := toolEntries(t)
	if len(idx) == 0 {
		return
	}
	pos := len(idx) // none: just past the newest
	for i, x := range idx {
		if x == t.toolSel {
			pos = i
		}
	}
	pos = min(max(0, pos+dir), len(idx)-1)
	m.selectTool(t, idx[pos])
}

// selectTool highlights entry i and scrolls it into view.
func (m *Model) selectTool(t *threadView, i int) {
	if old := selectedTool(t); old != nil {
		old.selected = false
		old.touch()
	}
	t.toolSel = i
	e := t.entries[i]
	e.selected = true
	e.touch()
	m.scrollToEntry(t, i)
}

// clearToolFocus drops the highlight; it reports whether there was one.
func (m *Model) clearToolFocus() bool {
	t := m.sess.threads[m.focused]
	if t == nil {
		return false
	}
	e := selectedTool(t)
	t.toolSel = -1
	if e == nil {
		return false
	}
	e.selected = false
	e.touch()
	return true
}

// toggleTool expands or collapses the highlighted call (else the last).
func (m *Model) toggleTool() {
	t := m.sess.threads[m.focused]
	if t == nil {
		return
	}
	e := selectedTool(t)
	if e == nil {
		if idx := toolEntries(t); len(idx) > 0 {
			e = t.entries[idx[len(idx)-1]]
		}
	}
	if e == nil {
		return
	}
	e.collapsed = !e.collapsed
	e.touch()
	if t.toolSel >= 0 {
		m.scrollToEntry(t, t.toolSel)
	}
}

// scrollToEntry scrolls t so entry i starts in the window, unless the
// whole of it is already shown.
func (m *Model) scrollToEntry(t *threadView, i int) {
	w, h := m.transcriptWidth(), max(1, m.bodyHeight()-1)
	start := 0
	for _, e := range t.entries[:i] {
		start += len(m.r.lines(m.sess, e, w))
	}
	n := len(m.r.lines(m.sess, t.entries[i], w))
	total := m.r.totalLines(m.sess, t, w)
	top := t.top
	if t.follow {
		top = max(0, total-h)
	}
	if start >= top && start+n <= top+h {
		return // already in view
	}
	t.follow = false
	t.top = max(0, min(start, total-h))
	t.follow = t.top >= total-h
}
