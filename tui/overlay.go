package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// agentsOverlay is the Ctrl+T table of every agent.
type agentsOverlay struct {
	cursor    int
	sortBy    int // column index
	filter    string
	filtering bool
}

var overlayColumns = []string{"status", "elapsed", "role", "model", "last tool", "tokens", "note"}

func newAgentsOverlay() *agentsOverlay { return &agentsOverlay{sortBy: -1} }

// key handles a key; it returns a thread to jump to and whether to close.
// The rows are computed here as the view computes them (the view keeps no
// state of its own).
func (o *agentsOverlay) key(m *Model, msg tea.KeyPressMsg) (protocol.ThreadID, bool) {
	rows := o.rows(m)
	defer func() { o.cursor = min(o.cursor, max(0, len(o.rows(m))-1)) }()
	k := msg.String()
	if o.filtering {
		switch {
		case is(k, agentsKeys.FilterDone):
			o.filtering = false
		case is(k, agentsKeys.FilterBack):
			o.filter = dropLastRune(o.filter)
		default:
			if t := msg.Text; t != "" {
				o.filter += t
			}
		}
		o.cursor = 0
		return "", false
	}
	ak := agentsKeys
	switch {
	case is(k, ak.Close):
		return "", true
	case is(k, ak.Up):
		o.cursor = max(0, o.cursor-1)
	case is(k, ak.Down):
		o.cursor++
	case is(k, ak.Sort):
		o.sortBy = (o.sortBy+2)%(len(overlayColumns)+1) - 1
	case is(k, ak.Filter):
		o.filtering = true
	case is(k, ak.Jump):
		if o.cursor < len(rows) {
			return rows[o.cursor].id, true
		}
	}
	return "", false
}

// overlayRow is one agent in the table.
type overlayRow struct {
	id    protocol.ThreadID
	cells []string
	t     *threadView
}

// rows are the agents shown, filtered and sorted.
func (o *agentsOverlay) rows(m *Model) []overlayRow {
	now := m.now()
	var rows []overlayRow
	for _, id := range m.sess.treeOrder() {
		t := m.sess.threads[id]
		cells := []string{
			liveWord(t), formatElapsed(t, now), strings.Repeat(" ", t.info.Depth) + t.fullName(),
			t.info.Model, t.lastTool, m.tokensCell(t), t.note(),
		}
		if o.filter != "" && !strings.Contains(strings.ToLower(strings.Join(cells, " ")), strings.ToLower(o.filter)) {
			continue
		}
		rows = append(rows, overlayRow{id, cells, t})
	}
	if o.sortBy >= 0 {
		col := o.sortBy
		sort.SliceStable(rows, func(i, j int) bool { return agentLess(col, rows[i].t, rows[j].t, now) })
	}
	return rows
}

func (o *agentsOverlay) view(m *Model, w, h int) []string {
	rows := o.rows(m)
	cursor := min(o.cursor, max(0, len(rows)-1))
	widths := []int{11, 8, 18, 16, 14, 8}
	if w < 120 {
		widths = []int{11, 6, 16, 12, 12, 6}
	} else if m.opts.Cost != nil {
		widths[5] = 16 // tokens and cost (cost.go)
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
	if o.sortBy == 6 {
		head += "note▾"
	} else {
		head += "note"
	}
	title := m.th.paneTitle.Render("Agents") + m.th.dim.Render(fmt.Sprintf(" %d · ↑↓ move · enter open · s sort · / filter · esc close", len(rows)))
	if o.filtering || o.filter != "" {
		title += "  " + m.th.key.Render("filter: ") + o.filter
		if o.filtering {
			title += "▏"
		}
	}
	lines := []string{title, m.usageLine(rows, cursor, w), m.th.tableHead.Render(padRight(head, w))}
	start := max(0, cursor-(h-5))
	for i, r := range rows {
		if i < start {
			continue
		}
		line := m.r.threadGlyph(r.t) + " "
		for c := 0; c < 6; c++ {
			wc := widths[c]
			if c == 0 {
				wc -= 2
			}
			line += cell(r.cells[c], wc) + " "
		}
		line += clip(r.cells[6], noteW)
		if i == cursor {
			line = m.th.tableSel.Render(padRight(ansiStrip(line), w))
		}
		lines = append(lines, line)
	}
	return lines
}

// statusRank orders statuses for sorting: what needs attention first.
var statusRank = map[protocol.StatusKind]int{
	protocol.StatusErrored: 0, protocol.StatusRunning: 1, protocol.StatusPendingInit: 2,
	protocol.StatusInterrupted: 3, protocol.StatusCompleted: 4, protocol.StatusShutdown: 5, protocol.StatusNotFound: 6,
}

// agentLess compares two agents on a column by value (durations as
// durations, tokens as numbers, roles without the tree indent).
func agentLess(col int, a, b *threadView, now time.Time) bool {
	switch col {
	case 0:
		return statusRank[a.shown().Kind] < statusRank[b.shown().Kind]
	case 1:
		da, _ := elapsed(a, now)
		db, _ := elapsed(b, now)
		return da > db
	case 2:
		return strings.ToLower(a.fullName()) < strings.ToLower(b.fullName())
	case 3:
		return a.info.Model < b.info.Model
	case 4:
		return a.lastTool < b.lastTool
	case 5:
		return a.usage.TotalTokens > b.usage.TotalTokens
	}
	return strings.ToLower(a.info.Note) < strings.ToLower(b.info.Note)
}

// dropLastRune removes the last character (never half of one).
func dropLastRune(s string) string {
	_, n := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-n]
}

// usageLine is the token breakdown of the selected agent and of the whole
// session, from the providers' usage fields (replayed on resume).
func (m *Model) usageLine(rows []overlayRow, cursor, w int) string {
	var total protocol.TokenUsage
	for _, t := range m.sess.threads {
		total.Add(t.usage)
	}
	// The cost leads each part: a narrow window cuts token details first.
	line := "session "
	if w := costWords(m.sessionCost()); w != "" {
		line += w + " · "
	}
	line += usageWords(total)
	if cursor < len(rows) {
		t := rows[cursor].t
		agent := t.name() + " "
		if c, ok := m.agentCost(t); ok {
			agent += formatUSD(c) + " · "
		}
		line = agent + usageWords(t.usage) + " │ " + line
	}
	return m.th.dim.Render(clip(line, w))
}

// usageWords spells a usage: input (of it cached), output (of it reasoning).
func usageWords(u protocol.TokenUsage) string {
	return fmt.Sprintf("in %s (cached %s) · out %s (reasoning %s)", humanTokens(u.InputTokens), humanTokens(u.CachedInputTokens), humanTokens(u.OutputTokens), humanTokens(u.ReasoningTokens))
}
