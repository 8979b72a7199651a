package tui

import (
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/atotto/clipboard"
	"github.com/mattn/go-runewidth"
)

// editorKeyMap is the composer's editing keys: the bubbles textarea's
// (emacs-style, as in a shell), so muscle memory carries over.
type editorKeyMap struct {
	CharacterForward, CharacterBackward, WordForward, WordBackward,
	LineNext, LinePrevious, DeleteWordBackward, DeleteWordForward,
	DeleteAfterCursor, DeleteBeforeCursor, InsertNewline,
	DeleteCharacterBackward, DeleteCharacterForward, LineStart, LineEnd,
	Paste, InputBegin, InputEnd, CapitalizeWordForward, LowercaseWordForward,
	UppercaseWordForward, TransposeCharacterBackward key.Binding
}

// editorKeys is the composer's keymap; its newline is the main screen's.
var editorKeys = editorKeyMap{
	CharacterForward:           bind("character forward", "right", "ctrl+f"),
	CharacterBackward:          bind("character backward", "left", "ctrl+b"),
	WordForward:                bind("word forward", "alt+right", "ctrl+right", "alt+f"),
	WordBackward:               bind("word backward", "alt+left", "ctrl+left", "alt+b"),
	LineNext:                   bind("next line", "down", "ctrl+n"),
	LinePrevious:               bind("previous line", "up", "ctrl+p"),
	DeleteWordBackward:         bind("delete word backward", "alt+backspace", "ctrl+w", "ctrl+backspace"),
	DeleteWordForward:          bind("delete word forward", "alt+delete", "alt+d", "ctrl+delete"),
	DeleteAfterCursor:          bind("delete after cursor", "ctrl+k"),
	DeleteBeforeCursor:         bind("delete before cursor", "ctrl+u"),
	InsertNewline:              keys.NewLine,
	DeleteCharacterBackward:    bind("delete character backward", "backspace", "ctrl+h"),
	DeleteCharacterForward:     bind("delete character forward", "delete", "ctrl+d"),
	LineStart:                  bind("line start", "home", "ctrl+a"),
	LineEnd:                    bind("line end", "end", "ctrl+e"),
	Paste:                      bind("paste", "ctrl+v"),
	InputBegin:                 bind("input begin", "alt+<", "ctrl+home"),
	InputEnd:                   bind("input end", "alt+>", "ctrl+end"),
	CapitalizeWordForward:      bind("capitalize word forward", "alt+c"),
	LowercaseWordForward:       bind("lowercase word forward", "alt+l"),
	UppercaseWordForward:       bind("uppercase word forward", "alt+u"),
	TransposeCharacterBackward: bind("transpose character backward", "ctrl+t"),
}

// readClipboard is ctrl+v: the system clipboard, when there is one, as
// a paste (so a long one becomes a chip like a terminal's paste).
func readClipboard() tea.Msg {
	s, err := clipboard.ReadAll()
	if err != nil || s == "" {
		return nil
	}
	return tea.PasteMsg{Content: s}
}

// Update applies a key, a paste or the clipboard's text.
func (e editor) Update(msg tea.Msg) (editor, tea.Cmd) {
	if !e.focused {
		return e, nil
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		e.insert(sanitizeInput(msg.Content))
	case tea.KeyPressMsg:
		if key.Matches(msg, editorKeys.Paste) {
			return e, readClipboard
		}
		if !e.editKey(msg) && !e.moveKey(msg) && msg.Text != "" {
			e.insert(sanitizeInput(msg.Text))
		}
	}
	return e, nil
}

// editKey applies a key that changes the text; false for any other key.
func (e *editor) editKey(msg tea.KeyPressMsg) bool {
	k := &editorKeys
	l := e.lines[e.row]
	switch {
	case key.Matches(msg, k.InsertNewline):
		e.splitLine()
		return true
	case key.Matches(msg, k.DeleteCharacterBackward):
		if e.col == 0 {
			e.joinPrevious()
		} else {
			e.replace(e.row, e.col-1, e.col, nil)
			e.col--
		}
	case key.Matches(msg, k.DeleteCharacterForward):
		if e.col >= len(l) {
			e.joinNext(e.row)
		} else {
			e.replace(e.row, e.col, e.col+1, nil)
		}
	case key.Matches(msg, k.DeleteWordBackward):
		if e.col == 0 {
			e.joinPrevious()
		} else {
			from := wordStartBefore(l, e.col)
			e.replace(e.row, from, e.col, nil)
			e.col = from
		}
	case key.Matches(msg, k.DeleteWordForward):
		if e.col >= len(l) {
			e.joinNext(e.row)
		} else {
			e.replace(e.row, e.col, wordEndAfter(l, e.col), nil)
		}
	case key.Matches(msg, k.DeleteAfterCursor):
		if e.col >= len(l) {
			e.joinNext(e.row)
		} else {
			e.replace(e.row, e.col, len(l), nil)
		}
	case key.Matches(msg, k.DeleteBeforeCursor):
		if e.col == 0 {
			e.joinPrevious()
		} else {
			e.replace(e.row, 0, e.col, nil)
			e.col = 0
		}
	case key.Matches(msg, k.UppercaseWordForward, k.LowercaseWordForward, k.CapitalizeWordForward):
		e.caseWord(msg)
	case key.Matches(msg, k.TransposeCharacterBackward):
		e.transpose()
	default:
		return false
	}
	e.goal = -1
	e.changed()
	return true
}

// joinPrevious is backspace at a line's start: join it to the line above.
func (e *editor) joinPrevious() {
	if e.row == 0 {
		return
	}
	e.row--
	e.col = len(e.lines[e.row])
	e.joinNext(e.row)
}

// caseWord changes the case of the word after the cursor (alt+u, alt+l,
// alt+c) and moves past it.
func (e *editor) caseWord(msg tea.KeyPressMsg) {
	e.skipSpacesForward()
	l := e.lines[e.row]
	end := wordEndAfter(l, e.col)
	w := append([]rune(nil), l[e.col:end]...)
	for i, r := range w {
		switch {
		case key.Matches(msg, editorKeys.UppercaseWordForward):
			w[i] = unicode.ToUpper(r)
		case key.Matches(msg, editorKeys.LowercaseWordForward):
			w[i] = unicode.ToLower(r)
		case i == 0:
			w[i] = unicode.ToTitle(r)
		}
	}
	e.replace(e.row, e.col, end, w)
	e.col = end
}

// transpose swaps the characters before and at the cursor (ctrl+t).
func (e *editor) transpose() {
	l := e.lines[e.row]
	if e.col == 0 || len(l) < 2 {
		return
	}
	if e.col >= len(l) {
		e.col--
	}
	e.replace(e.row, e.col-1, e.col+1, []rune{l[e.col], l[e.col-1]})
	e.col = min(e.col+1, len(e.lines[e.row]))
}

// moveKey applies a key that moves the cursor; false for any other key.
func (e *editor) moveKey(msg tea.KeyPressMsg) bool {
	k := &editorKeys
	switch {
	case key.Matches(msg, k.LineNext):
		e.vertical(1)
	case key.Matches(msg, k.LinePrevious):
		e.vertical(-1)
	default:
		e.goal = -1
		return e.horizontal(msg)
	}
	e.scrollToCursor()
	return true
}

// horizontal applies a key that moves the cursor along the text.
func (e *editor) horizontal(msg tea.KeyPressMsg) bool {
	k := &editorKeys
	l := e.lines[e.row]
	switch {
	case key.Matches(msg, k.CharacterForward):
		if e.col < len(l) {
			e.col++
		} else if e.row+1 < len(e.lines) {
			e.row, e.col = e.row+1, 0
		}
	case key.Matches(msg, k.CharacterBackward):
		if e.col > 0 {
			e.col--
		} else if e.row > 0 {
			e.row--
			e.col = len(e.lines[e.row])
		}
	case key.Matches(msg, k.WordForward):
		e.skipSpacesForward()
		e.col = wordEndAfter(e.lines[e.row], e.col)
	case key.Matches(msg, k.WordBackward):
		e.wordBackward()
	case key.Matches(msg, k.LineStart):
		e.col = 0
	case key.Matches(msg, k.LineEnd):
		e.col = len(l)
	case key.Matches(msg, k.InputBegin):
		e.row, e.col = 0, 0
	case key.Matches(msg, k.InputEnd):
		e.row = len(e.lines) - 1
		e.col = len(e.lines[e.row])
	default:
		return false
	}
	e.scrollToCursor()
	return true
}

// skipSpacesForward moves the cursor over spaces and line ends to the
// next word (or the end of the text).
func (e *editor) skipSpacesForward() {
	for {
		l := e.lines[e.row]
		for e.col < len(l) && unicode.IsSpace(l[e.col]) {
			e.col++
		}
		if e.col < len(l) || e.row+1 >= len(e.lines) {
			return
		}
		e.row, e.col = e.row+1, 0
	}
}

// wordBackward moves the cursor to the start of the word before it,
// across line starts.
func (e *editor) wordBackward() {
	for {
		l := e.lines[e.row]
		c := e.col
		for c > 0 && unicode.IsSpace(l[c-1]) {
			c--
		}
		if c > 0 || e.row == 0 {
			e.col = wordStartBefore(l, c)
			return
		}
		e.row--
		e.col = len(e.lines[e.row])
	}
}

// wordStartBefore is where the word before col starts (spaces between
// it and col skipped).
func wordStartBefore(l []rune, col int) int {
	for col > 0 && unicode.IsSpace(l[col-1]) {
		col--
	}
	for col > 0 && !unicode.IsSpace(l[col-1]) {
		col--
	}
	return col
}

// wordEndAfter is where the word at or after col ends.
func wordEndAfter(l []rune, col int) int {
	for col < len(l) && unicode.IsSpace(l[col]) {
		col++
	}
	for col < len(l) && !unicode.IsSpace(l[col]) {
		col++
	}
	return col
}

// vertical moves the cursor d visual rows, keeping its display column.
func (e *editor) vertical(d int) {
	r, c := e.cursorRow()
	if e.goal < 0 {
		e.goal = c
	}
	target := r + d
	if target < 0 || target >= e.rows {
		return
	}
	row, sub := e.rowAt(target)
	l, starts := e.lines[row], e.starts[row]
	end := len(l) // the last row: the cursor may sit after its end
	if sub+1 < len(starts) {
		end = starts[sub+1] - 1 // the next row's start shows on the next row
	}
	col, w := starts[sub], 0
	for col < end && w+runewidth.RuneWidth(l[col]) <= e.goal {
		w += runewidth.RuneWidth(l[col])
		col++
	}
	e.row, e.col = row, col
}

// cursorRow is the cursor's visual row and display column.
func (e *editor) cursorRow() (int, int) {
	r := 0
	for i := 0; i < e.row; i++ {
		r += len(e.starts[i])
	}
	starts := e.starts[e.row]
	sub := rowOf(starts, e.col)
	return r + sub, rowWidth(e.lines[e.row], starts[sub], e.col)
}

// rowAt is the line and its row shown at visual row v.
func (e *editor) rowAt(v int) (line, sub int) {
	for i, s := range e.starts {
		if v < len(s) {
			return i, v
		}
		v -= len(s)
	}
	last := len(e.starts) - 1
	return last, len(e.starts[last]) - 1
}

// scrollToCursor keeps the cursor's row among the rows shown.
func (e *editor) scrollToCursor() {
	r, _ := e.cursorRow()
	h := e.Height()
	e.top = min(max(e.top, r-h+1), r)
	e.top = max(0, min(e.top, e.rows-h))
}
