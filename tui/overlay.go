package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// agentsOverlay is the Ctrl+T table of every agent.
type agentsOverlay struct {
	cursor    int
	sortBy    int // column index
	filter    string
	filtering bool
	rows      []protocol.ThreadID // last rendered order (for Enter)
}

var overlayColumns = []string{"status", "elapsed", "role", "model", "last tool", "tokens", "note"}

func newAgentsOverlay() *agentsOverlay { return &agentsOverlay{sortBy: -1} }

// key handles a key; it returns a thread to jump to and whether to close.
func (o *agentsOverlay) key(msg tea.KeyPressMsg) (protocol.ThreadID, bool) {
	k := msg.String()
	if o.filtering {
		switch k {
		case "enter", "esc":
			o.filtering = false
		case "backspace":
			if o.filter != "" {
				o.filter = o.filter[:len(o.filter)-1]
			}
		default:
			if t := msg.Text; t != "" {
				o.filter += t
			}
		}
		o.cursor = 0
		return "", false
	}
	switch k {
	case "esc", "q", "ctrl+t":
		return "", true
	case "up", "k":
		o.cursor = max(0, o.cursor-1)
	case "down", "j":
		o.cursor++
	case "s":
		o.sortBy = (o.sortBy+2)%(len(overlayColumns)+1) - 1
	case "/":
		o.filtering = true
	case "enter":
		if o.cursor < len(o.rows) {
			return o.rows[o.cursor], true
		}
	}
	return "", false
}

func (o *agentsOverlay) view(m *Model, w, h int) []string {
	now := m.now()
	type row struct {
		id    protocol.ThreadID
		cells []string
		t     *threadView
	}
	var rows []row
	for _, id := range m.sess.treeOrder() {
		t := m.sess.threads[id]
		cells := []string{
			liveWord(t), formatElapsed(t, now), strings.Repeat(" ", t.info.Depth) + roleLabel(t.info),
			t.info.Model, t.lastTool, humanTokens(t.usage.TotalTokens), t.info.Note,
		}
		if o.filter != "" && !strings.Contains(strings.ToLower(strings.Join(cells, " ")), strings.ToLower(o.filter)) {
			continue
		}
		rows = append(rows, row{id, cells, t})
	}
	if o.sortBy >= 0 {
		col := o.sortBy
		sort.SliceStable(rows, func(i, j int) bool {
			if col == 5 {
				return rows[i].t.usage.TotalTokens > rows[j].t.usage.TotalTokens
			}
			return rows[i].cells[col] < rows[j].cells[col]
		})
	}
	o.rows = o.rows[:0]
	for _, r := range rows {
		o.rows = append(o.rows, r.id)
	}
	o.cursor = min(o.cursor, max(0, len(rows)-1))
	widths := []int{11, 8, 18, 16, 14, 8}
	if w < 120 {
		widths = []int{11, 6, 16, 12, 12, 6}
	}
	fixed := 0
	for _, x := range widths {
		fixed += x + 1
	}
	noteW := max(8, w-fixed-2)
	cell := func(s string, n int) string { return padRight(clip(s, n), n) }
	head := ""
	for i, c := range overlayColumns[:6] {
		if i == o.sortBy {
			c += "▾"
		}
		head += cell(c, widths[i]) + " "
	}
	head += "note"
	title := m.th.paneTitle.Render("Agents") + m.th.dim.Render(fmt.Sprintf(" %d · ↑↓ move · enter open · s sort · / filter · esc close", len(rows)))
	if o.filtering || o.filter != "" {
		title += "  " + m.th.key.Render("filter: ") + o.filter
		if o.filtering {
			title += "▏"
		}
	}
	lines := []string{title, m.th.tableHead.Render(padRight(head, w))}
	start := max(0, o.cursor-(h-4))
	for i, r := range rows {
		if i < start {
			continue
		}
		line := m.r.statusGlyph(r.t.shown()) + " "
		for c := 0; c < 6; c++ {
			wc := widths[c]
			if c == 0 {
				wc -= 2
			}
			line += cell(r.cells[c], wc) + " "
		}
		line += clip(r.cells[6], noteW)
		if i == o.cursor {
			line = m.th.tableSel.Render(padRight(ansiStrip(line), w))
		}
		lines = append(lines, line)
	}
	return lines
}
