package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// editor is the composer's text: logical lines of runes, the cursor, and
// each line's soft-wrapped rows, kept up to date where an edit lands
// (editor_wrap.go), so a key costs the same in an empty draft and in a
// 3,000-character one. It replaces the bubbles textarea, whose every key
// re-wrapped the whole line and rendered every row (issue 35 item 19).
type editor struct {
	lines    [][]rune
	starts   [][]int // starts[i]: where line i's rows start
	rows     int     // visual rows, all lines
	row, col int     // cursor: line and rune offset in it
	goal     int     // display column kept by up/down (-1: none)
	width    int     // columns for text (the prompt excluded)
	top      int     // first visual row shown
	focused  bool
	value    string // the text, rebuilt once per edit

	Placeholder string
	MaxHeight   int // rows shown at most; the view scrolls with the cursor
	MaxRows     int // visual rows the draft may hold (0: no limit)
}

// editorPrompt is the prompt's width: "› " on the first row, "  " after.
const editorPrompt = 2

func newEditor() editor {
	e := editor{width: 40, goal: -1, MaxHeight: 1}
	e.setLines([][]rune{{}})
	return e
}

// setLines replaces the whole text and wraps it anew.
func (e *editor) setLines(lines [][]rune) {
	e.lines = lines
	e.starts = make([][]int, len(lines))
	e.rows = 0
	for i, l := range lines {
		e.starts[i] = wrapLine(l, e.width)
		e.rows += len(e.starts[i])
	}
	e.row = min(e.row, len(lines)-1)
	e.col = min(e.col, len(lines[e.row]))
	e.changed()
}

// changed rebuilds the text after an edit and keeps the cursor in view.
func (e *editor) changed() {
	var b strings.Builder
	for i, l := range e.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(string(l))
	}
	e.value = b.String()
	e.scrollToCursor()
}

// Value is the draft.
func (e *editor) Value() string { return e.value }

// SetValue replaces the draft; the cursor goes to its end.
func (e *editor) SetValue(s string) {
	e.setLines(splitRunes(sanitizeInput(s)))
	e.row = len(e.lines) - 1
	e.CursorEnd()
}

// Reset empties the draft.
func (e *editor) Reset() {
	e.row, e.col, e.top = 0, 0, 0
	e.setLines([][]rune{{}})
}

// InsertString inserts s at the cursor.
func (e *editor) InsertString(s string) { e.insert(sanitizeInput(s)) }

// CursorEnd moves the cursor to the end of its line.
func (e *editor) CursorEnd() {
	e.col, e.goal = len(e.lines[e.row]), -1
	e.scrollToCursor()
}

// Focus gives the editor the keys and shows its cursor.
func (e *editor) Focus() { e.focused = true }

// Blur takes the keys away and hides the cursor.
func (e *editor) Blur() { e.focused = false }

// Focused reports whether the editor has the keys.
func (e *editor) Focused() bool { return e.focused }

// Height is how many rows the editor shows: its content, 1 to MaxHeight.
func (e *editor) Height() int { return max(1, min(e.rows, max(1, e.MaxHeight))) }

// SetWidth sets the width with the prompt; every line wraps anew.
func (e *editor) SetWidth(w int) {
	if w = max(1, w-editorPrompt); w != e.width {
		e.width = w
		e.setLines(e.lines)
	}
}

// sanitizeInput is typed or pasted text as the draft holds it: line ends
// as \n, tabs as four spaces, no other control characters.
func sanitizeInput(s string) []rune {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			out = append(out, r)
		case r == '\t':
			out = append(out, ' ', ' ', ' ', ' ')
		case r == utf8.RuneError || unicode.IsControl(r):
		default:
			out = append(out, r)
		}
	}
	return out
}

// splitRunes cuts text at its newlines into lines (each its own array).
func splitRunes(rs []rune) [][]rune {
	lines := [][]rune{}
	start := 0
	for i, r := range rs {
		if r == '\n' {
			lines = append(lines, append([]rune(nil), rs[start:i]...))
			start = i + 1
		}
	}
	return append(lines, append([]rune(nil), rs[start:]...))
}

// replace puts ins in place of line row's runes [from, to) and re-wraps
// only the rows the edit can change.
func (e *editor) replace(row, from, to int, ins []rune) {
	l := e.lines[row]
	if from == to && to == len(l) {
		l = append(l, ins...) // typing at the end: amortised O(1)
	} else {
		l = append(l[:from:from], append(append([]rune(nil), ins...), l[to:]...)...)
	}
	e.lines[row] = l
	old := len(e.starts[row])
	e.starts[row] = rewrap(e.starts[row], l, e.width, from, to-from, len(ins))
	e.rows += len(e.starts[row]) - old
}

// setLine replaces line row whole (joins and splits) and wraps it.
func (e *editor) setLine(row int, l []rune) {
	e.lines[row] = l
	old := len(e.starts[row])
	e.starts[row] = wrapLine(l, e.width)
	e.rows += len(e.starts[row]) - old
}

// insertLines inserts empty lines after row.
func (e *editor) insertLines(row, n int) {
	e.lines = append(e.lines[:row+1], append(make([][]rune, n), e.lines[row+1:]...)...)
	e.starts = append(e.starts[:row+1], append(make([][]int, n), e.starts[row+1:]...)...)
	for i := row + 1; i <= row+n; i++ {
		e.lines[i] = []rune{}
		e.starts[i] = wrapLine(nil, e.width)
		e.rows += len(e.starts[i])
	}
}

// deleteLine removes line row.
func (e *editor) deleteLine(row int) {
	e.rows -= len(e.starts[row])
	e.lines = append(e.lines[:row], e.lines[row+1:]...)
	e.starts = append(e.starts[:row], e.starts[row+1:]...)
}

// insert types rs at the cursor; past MaxRows the draft takes no more.
func (e *editor) insert(rs []rune) {
	if len(rs) == 0 || e.MaxRows > 0 && e.rows >= e.MaxRows {
		return
	}
	parts := splitRunes(rs)
	if len(parts) == 1 {
		e.replace(e.row, e.col, e.col, rs)
		e.col += len(rs)
	} else {
		cur := e.lines[e.row]
		tail := append([]rune(nil), cur[e.col:]...)
		e.setLine(e.row, append(cur[:e.col:e.col], parts[0]...))
		e.insertLines(e.row, len(parts)-1)
		for i, p := range parts[1:] {
			e.row++
			if i == len(parts)-2 {
				e.col = len(p)
				p = append(p, tail...)
			}
			e.setLine(e.row, p)
		}
	}
	e.goal = -1
	e.changed()
}

// splitLine is a newline at the cursor.
func (e *editor) splitLine() { e.insert([]rune{'\n'}) }

// joinNext joins line row and the one below.
func (e *editor) joinNext(row int) {
	if row+1 >= len(e.lines) {
		return
	}
	joined := append(e.lines[row][:len(e.lines[row]):len(e.lines[row])], e.lines[row+1]...)
	e.deleteLine(row + 1)
	e.setLine(row, joined)
}
