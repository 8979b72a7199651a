package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrap soft-wraps text to width w, keeping existing newlines. No row is
// wider than w as ansi.StringWidth (the renderer's measure) counts it,
// except a row holding a single character wider than w (a wide rune at
// width 1), which cannot be split.
//
// The only text left out is the newlines (each ends a row) and the
// spaces of a run that does not fit on the row together with the word
// after it: the run where the row breaks, at the end of a line, or at
// its start (indentation wider than the room left for its first word).
// Every other byte stays, in order: escape codes and zero-width
// characters in a dropped run stay at the end of the row. Rows break
// at spaces, after a hyphen inside a word ("well-|known", not "-|run"),
// and inside a word wider than w. Breaking is greedy and a row after a
// space break starts as if the text began there, which is what lets the
// streamed rows (streamText.tailRows) wrap only the end of the text.
func wrap(s string, w int) []string {
	w = max(w, 1)
	var out []string
	var cells []wrapCell // reused line to line
	for line := range strings.SplitSeq(s, "\n") {
		cells = wrapCells(cells[:0], line)
		out = wrapRows(out, cells, w)
	}
	return out
}

// wrapCell is one grapheme or escape sequence of a line with its width.
type wrapCell struct {
	s string
	w int
}

func (c wrapCell) space() bool  { return c.s == " " }
func (c wrapCell) hyphen() bool { return c.s == "-" }

// wrapCells appends the graphemes and escape sequences of a line to cells.
func wrapCells(cells []wrapCell, line string) []wrapCell {
	var state byte
	for len(line) > 0 {
		seq, w, n, next := ansi.DecodeSequence(line, state, nil)
		if n <= 0 {
			n, seq = 1, line[:1]
		}
		cells = append(cells, wrapCell{seq, w})
		line, state = line[n:], next
	}
	return cells
}

// wrapRows appends the rows of one line (no newline in it) to out.
func wrapRows(out []string, cells []wrapCell, w int) []string {
	var b strings.Builder
	b.Grow(min(len(cells)*2, 4*w))
	cur := 0 // width of the row in b
	flush := func() {
		out = append(out, b.String())
		b.Reset()
		cur = 0
	}
	for i := 0; i < len(cells); {
		// A run of spaces (escape codes and other zero-width characters
		// among them go with it), then a piece of text to place after it.
		j, sw := i, 0
		for j < len(cells) && (cells[j].space() || cells[j].w == 0) {
			sw += cells[j].w
			j++
		}
		k, pw := wrapPiece(cells, j)
		if cur+sw+pw <= w { // the run and the piece fit
			for _, c := range cells[i:k] {
				b.WriteString(c.s)
			}
			cur, i = cur+sw+pw, k
			continue
		}
		// They do not: the run's spaces are dropped (what else is in it
		// ends this row) and the piece starts the next row.
		for _, c := range cells[i:j] {
			if !c.space() {
				b.WriteString(c.s)
			}
		}
		if cur > 0 && pw > 0 {
			flush()
		}
		for _, c := range cells[j:k] { // hard breaks only in a piece wider than w
			if c.w > 0 && cur > 0 && cur+c.w > w {
				flush()
			}
			b.WriteString(c.s)
			cur += c.w
		}
		i = k
	}
	return append(out, b.String())
}

// wrapPiece returns the end and width of the unbreakable piece of text
// starting at cells[j]: up to the next space, or through a hyphen that
// joins two parts of a word ("well-" of "well-known"; never "-" of "-run"
// or "--").
func wrapPiece(cells []wrapCell, j int) (int, int) {
	k, pw := j, 0
	for k < len(cells) && !cells[k].space() {
		c := cells[k]
		pw += c.w
		k++
		if c.hyphen() && k-1 > j && !cells[k-2].hyphen() && k < len(cells) && !cells[k].space() && !cells[k].hyphen() {
			break
		}
	}
	return k, pw
}
