package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/grovecli/grove/rollout"
)

// pickerRow is one session's row before layout: its title and the parts
// of its right column.
type pickerRow struct {
	title string
	head  string // when, sub-agents, the deleted mark: never cut
	dir   string // cut at its start when the row is short
}

// rows lays out the visible sessions (list, the first at index first) in
// two aligned columns: the title, which keeps up to 2/5 of the width, and
// when / sub-agents / directory, whose directory gives way first.
func (p *picker) rows(r *renderer, list []rollout.IndexEntry, first, listW int) []string {
	now := p.now()
	rs := make([]pickerRow, len(list))
	titleW, metaW := 0, 0
	for i, e := range list {
		rs[i] = p.row(e, now.Sub(e.UpdatedAt))
		titleW = max(titleW, lipglossWidth(rs[i].title))
		metaW = max(metaW, ansi.StringWidth(rs[i].head)+ansi.StringWidth(rs[i].dir))
	}
	const gap = 2
	titleCol := max(10, listW-gap-metaW, min(titleW, listW*2/5))
	metaCol := max(0, listW-gap-titleCol)
	out := make([]string, len(rs))
	for i, row := range rs {
		meta := row.head + clipLeft(row.dir, max(1, metaCol-ansi.StringWidth(row.head)))
		line := padRight(clip(row.title, titleCol), titleCol) + "  " + r.th.dim.Render(meta)
		if first+i == p.cursor {
			line = r.th.tableSel.Render(padRight(ansiStrip(line), listW))
		}
		out[i] = ansi.Truncate(line, listW, "")
	}
	return out
}

func (p *picker) row(e rollout.IndexEntry, ago time.Duration) pickerRow {
	when := Ago(ago)
	if e.ID == p.current {
		when = "● open" // resuming it is a no-op
	}
	t := title(e)
	if e.Note != "" {
		t += " — " + e.Note
	}
	agents := ""
	if e.ChildCount > 0 {
		// The tree counts the root among its agents; the picker names what
		// the index counts, the sub-agents, so the two never disagree.
		agents = "+" + plural(e.ChildCount, "agent")
	}
	mark := ""
	if p.gone[e.ID] {
		mark = "✗ deleted " // never cut: it says why resuming will fail
	}
	if h, ok := p.held[e.ID]; ok && e.ID != p.current {
		mark += fmt.Sprintf("open in pid %d ", h.pid) // opens read-only (the preview says how to fork)
	}
	return pickerRow{title: t, head: fmt.Sprintf("%-8s %-10s %s", when, agents, mark), dir: shortenHome(e.Cwd)}
}

// clipLeft shortens s to n columns by cutting its start ("…/b/c").
func clipLeft(s string, n int) string {
	w := ansi.StringWidth(s)
	if w <= n {
		return s
	}
	return ansi.TruncateLeft(s, w-n+1, "…")
}
