package tui

import "strings"

// streamText is the growing text of a message still streaming and what is
// known about it, so each frame does work in proportion to what arrived
// since the last one, not to the whole message.
type streamText struct {
	buf strings.Builder // deltas append here (amortized, no full copy per delta)

	// Scan for stableCut: lines before scanPos are scanned.
	scanPos, scanCut int
	scanFenced       bool

	// Wrapped rows of the block being written, from tailStart at width
	// tailW: tailDone rows are final; re-wrapping resumes at tailRest.
	tailStart, tailW, tailRest int
	tailDone                   []string
}

// appendDelta adds a delta and returns the whole text so far.
func (s *streamText) appendDelta(d string) string {
	s.buf.WriteString(d)
	return s.buf.String()
}

// reset forgets everything (the provider restarted the message).
func (s *streamText) reset() { *s = streamText{} }

// stableCut is stableCut(text), scanning only the lines not scanned yet.
func (s *streamText) stableCut(text string) int {
	if s.scanPos > len(text) {
		s.scanPos, s.scanCut, s.scanFenced = 0, 0, false
	}
	for {
		i := strings.IndexByte(text[s.scanPos:], '\n')
		if i < 0 {
			return s.scanCut // the line being written
		}
		line := strings.TrimSpace(text[s.scanPos : s.scanPos+i])
		s.scanPos += i + 1
		switch {
		case strings.HasPrefix(line, "```"):
			s.scanFenced = !s.scanFenced
		case line == "" && !s.scanFenced:
			s.scanCut = s.scanPos
		}
	}
}

// tailRows wraps text[start:] to width w. Rows before the last two are
// final once a later row exists (wrapping is greedy: text appended later
// cannot move an earlier break), so only the end is wrapped again.
func (s *streamText) tailRows(text string, start, w int) []string {
	if s.tailStart != start || s.tailW != w || s.tailRest < start || s.tailRest > len(text) {
		s.tailStart, s.tailW, s.tailRest, s.tailDone = start, w, start, nil
	}
	live := wrap(text[s.tailRest:], w)
	if len(live) > 2 {
		if off, ok := rowOffset(text, s.tailRest, live, len(live)-2); ok {
			s.tailDone = append(s.tailDone, live[:len(live)-2]...)
			s.tailRest = off
			live = live[len(live)-2:]
		}
	}
	out := make([]string, 0, len(s.tailDone)+len(live))
	return append(append(out, s.tailDone...), live...)
}

// rowOffset finds where wrapped row n starts in text (rows wrap
// text[from:]), if wrapping may resume there. Rows are pieces of the text with only the spaces and
// newlines they broke at left out; anything else (a tab expanded, escape
// codes) reports false and the caller keeps wrapping in full.
func rowOffset(text string, from int, rows []string, n int) (int, bool) {
	pos := from
	for i := 0; i <= n; i++ {
		r := rows[i]
		if r == "" || strings.TrimLeft(r, " ") != r {
			return 0, false
		}
		idx := strings.Index(text[pos:], r)
		if idx < 0 || strings.Trim(text[pos:pos+idx], " \n") != "" {
			return 0, false
		}
		if i == n {
			// Resume only after a break at a space or newline: a break
			// inside a word (hyphen, hard break) depends on the word's end.
			return pos + idx, i > 0 && idx > 0
		}
		pos += idx + len(r)
	}
	return 0, false
}
