package tui

import (
	"slices"

	"github.com/mattn/go-runewidth"
)

// The composer's soft wrap, kept per logical line and updated where an
// edit lands (issue 35 item 19): the bubbles textarea re-wrapped the whole
// logical line twice per key and rendered every row into a viewport, so a
// key in a 3,000-character draft cost milliseconds and a burst of typed
// characters took seconds. Wrapping is greedy, so a row depends only on
// the text from its start to the first character that does not fit; an
// edit re-wraps from two rows before it until a row starts where an old
// row started (shifted by the edit) and keeps the rest.

// rowEnd is where the row that starts at s in line ends (the next row's
// start): at the last space that fits, else (one word wider than the row)
// at the width; spaces hang at a row's end and never force a break.
func rowEnd(line []rune, s, w int) int {
	col, lastSpace := 0, -1
	for i := s; i < len(line); i++ {
		r := line[i]
		if r == ' ' {
			col++
			lastSpace = i + 1
			continue
		}
		rw := runewidth.RuneWidth(r)
		if col+rw > w {
			switch {
			case lastSpace > s:
				return lastSpace
			case i == s:
				return i + 1 // one character wider than the row
			}
			return i
		}
		col += rw
	}
	return len(line)
}

// rowWidth is the display width of line[s:e].
func rowWidth(line []rune, s, e int) int {
	n := 0
	for _, r := range line[s:e] {
		n += runewidth.RuneWidth(r)
	}
	return n
}

// wrapFrom appends to starts the rows of line from offset s on. A last
// row with no room left for the cursor is followed by an empty row, so
// the cursor at the end of the line always has a cell.
func wrapFrom(starts []int, line []rune, s, w int) []int {
	for {
		starts = append(starts, s)
		e := rowEnd(line, s, w)
		if e >= len(line) {
			if rowWidth(line, s, len(line)) >= w {
				starts = append(starts, len(line))
			}
			return starts
		}
		s = e
	}
}

// wrapLine is every row start of line at width w.
func wrapLine(line []rune, w int) []int {
	return wrapFrom(make([]int, 0, 1+len(line)/max(1, w)), line, 0, w)
}

// rowOf is the index of the row that shows offset col (the last row
// starting at or before it).
func rowOf(starts []int, col int) int {
	i, found := slices.BinarySearch(starts, col)
	if found {
		// Several rows can start at the same offset only at the end (the
		// cursor's empty row); the cursor belongs to the last.
		for i+1 < len(starts) && starts[i+1] == col {
			i++
		}
		return i
	}
	return max(0, i-1)
}

// rewrap updates old (the row starts of a line before an edit) after the
// runes [p, p+del) were replaced by ins runes, to the rows of line (the
// line after the edit). It wraps from two rows before the edit and stops
// as soon as a new row starts where an old one did, past the edit.
func rewrap(old []int, line []rune, w, p, del, ins int) []int {
	if len(old) == 0 {
		return wrapLine(line, w)
	}
	k := max(0, rowOf(old, p)-2)
	starts := append(make([]int, 0, len(old)+1), old[:k]...)
	delta := ins - del
	s := old[k]
	j := k + 1 // old rows that may still match
	for {
		starts = append(starts, s)
		e := rowEnd(line, s, w)
		if e >= len(line) {
			if rowWidth(line, s, len(line)) >= w {
				starts = append(starts, len(line))
			}
			return starts
		}
		s = e
		if s < p+ins {
			continue
		}
		for j < len(old) && old[j]+delta < s {
			j++
		}
		if j < len(old) && old[j] >= p+del && old[j]+delta == s {
			for _, o := range old[j:] {
				starts = append(starts, o+delta)
			}
			return starts
		}
	}
}
