package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// transcriptSearch is a search in the focused transcript (ctrl+f, or / in
// the tree): typing edits the query, enter keeps it and steps to older
// matches (n older, N newer), esc closes and follows the bottom again.
type transcriptSearch struct {
	query   string
	editing bool
	matches []int // line numbers in the whole transcript at its width
	cur     int   // index into matches
	// opened are the collapsed tool calls the search expanded because
	// their full output matches; closing the search collapses them again.
	opened []*entry
}

// allLines is the whole transcript at width w (entries are cached).
func (r *renderer) allLines(s *session, t *threadView, w int) []string {
	var all []string
	for _, e := range t.entries {
		all = append(all, r.lines(s, e, w)...)
	}
	return append(all, r.tailLines(t, w)...)
}

// runSearch finds the query and shows the newest match.
func (m *Model) runSearch() {
	s, t := m.tsearch, m.sess.threads[m.focused]
	s.matches, s.cur = nil, 0
	if t == nil || s.query == "" {
		return
	}
	q := strings.ToLower(s.query)
	m.openMatchingCalls(t, q)
	for i, l := range m.r.allLines(m.sess, t, m.transcriptWidth()) {
		if strings.Contains(strings.ToLower(ansiStrip(l)), q) {
			s.matches = append(s.matches, i)
		}
	}
	s.cur = len(s.matches) - 1
	m.showMatch()
}

// openMatchingCalls expands the collapsed calls whose full output (not
// just the lines a collapsed call shows) holds q, so every match is seen.
func (m *Model) openMatchingCalls(t *threadView, q string) {
	for _, e := range t.entries {
		if e.kind != entryTool || !e.collapsed || e.tool == nil || !strings.Contains(strings.ToLower(e.tool.Output), q) {
			continue
		}
		e.collapsed = false
		e.touch()
		m.tsearch.opened = append(m.tsearch.opened, e)
	}
}

// showMatch scrolls the transcript so the current match is in the middle.
func (m *Model) showMatch() {
	s, t := m.tsearch, m.sess.threads[m.focused]
	if t == nil || s.cur < 0 || s.cur >= len(s.matches) {
		return
	}
	h := m.bodyHeight() - 1
	total := len(m.r.allLines(m.sess, t, m.transcriptWidth()))
	t.follow = false
	t.top = max(0, min(s.matches[s.cur]-h/2, total-h)) // as the view clamps it
}

// searchTranscriptKey handles a key while the search is open.
func (m *Model) searchTranscriptKey(msg tea.KeyPressMsg) {
	s := m.tsearch
	k := msg.String()
	if k == "esc" || k == "ctrl+f" {
		for _, e := range s.opened {
			e.collapsed = true
			e.touch()
		}
		m.tsearch = nil
		if t := m.sess.threads[m.focused]; t != nil {
			t.follow = true
		}
		return
	}
	if s.editing {
		switch {
		case is(k, searchKeys.Done):
			s.editing = false
		case is(k, searchKeys.Back):
			s.query = dropLastRune(s.query)
			m.runSearch()
		default:
			if msg.Text != "" {
				s.query += msg.Text
				m.runSearch()
			}
		}
		return
	}
	switch {
	case is(k, searchKeys.Prev):
		if s.cur > 0 {
			s.cur--
		}
	case is(k, searchKeys.Next):
		if s.cur < len(s.matches)-1 {
			s.cur++
		}
	case is(k, searchKeys.Edit):
		s.editing = true
	}
	m.showMatch()
}

// searchTitle is the transcript pane's title during a search.
func (m Model) searchTitle() string {
	s := m.tsearch
	count := "no match"
	if len(s.matches) > 0 {
		count = fmt.Sprintf("%d/%d", len(s.matches)-s.cur, len(s.matches))
	}
	q := s.query
	if s.editing {
		q += "▏"
	}
	help := " · enter next · n/N older/newer · esc close"
	if s.editing {
		help = " · enter to step through · esc close"
	}
	return m.th.key.Render("search: ") + q + "  " + m.th.warn.Render(count) + m.th.dim.Render(help)
}

// searchHit is the row (in the transcript window) of the current match,
// or -1.
func (m Model) searchHit() int {
	s, t := m.tsearch, m.sess.threads[m.focused]
	if s == nil || t == nil || t.follow || s.cur < 0 || s.cur >= len(s.matches) {
		return -1
	}
	return s.matches[s.cur] - t.top
}
