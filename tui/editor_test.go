package tui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestRewrapEqualsWrap: the incremental re-wrap after any edit gives the
// rows a full wrap gives (random lines, widths and edits, wide runes and
// runs of spaces included).
func TestRewrapEqualsWrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab cd  efghij   klmnop 世界 xyz")
	randRunes := func(n int) []rune {
		out := make([]rune, n)
		for i := range out {
			out[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return out
	}
	for iter := 0; iter < 5000; iter++ {
		w := 1 + rng.IntN(30)
		line := randRunes(rng.IntN(200))
		starts := wrapLine(line, w)
		for step := 0; step < 5; step++ {
			p := rng.IntN(len(line) + 1)
			del := rng.IntN(min(5, len(line)-p) + 1)
			ins := randRunes(rng.IntN(6))
			next := slices.Concat(line[:p], ins, line[p+del:])
			got := rewrap(starts, next, w, p, del, len(ins))
			if want := wrapLine(next, w); !slices.Equal(got, want) {
				t.Fatalf("width %d, %q: replace [%d,%d) by %q\nrewrap %v\nwrap   %v", w, string(line), p, p+del, string(ins), got, want)
			}
			line, starts = next, got
		}
	}
}

// TestWrapKeepsWordsAndWidth: rows are at most the width (spaces past it
// hang), words are not split unless longer than a row, and the text is
// all there.
func TestWrapKeepsWordsAndWidth(t *testing.T) {
	line := []rune("the quick brown fox jumps over the lazy dog averyveryverylongword end")
	starts := wrapLine(line, 10)
	var rows []string
	for i, s := range starts {
		e := len(line)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		rows = append(rows, string(line[s:e]))
	}
	want := []string{"the quick ", "brown fox ", "jumps over ", "the lazy ", "dog ", "averyveryv", "erylongwor", "d end"}
	if !slices.Equal(rows, want) {
		t.Fatalf("rows %q\nwant %q", rows, want)
	}
}

func editorWith(s string, w int) editor {
	e := newEditor()
	e.MaxHeight = 12
	e.SetWidth(w + editorPrompt)
	e.Focus()
	e.SetValue(s)
	return e
}

func editorPress(e editor, keys ...string) editor {
	for _, k := range keys {
		e, _ = e.Update(keyMsg(k))
	}
	return e
}

// TestEditorKeys: the textarea's editing keys keep their meaning
// (bubbles textarea_test.go's word and line cases, on grove's editor).
func TestEditorKeys(t *testing.T) {
	cases := []struct {
		text string
		keys []string
		want string // the text with | at the cursor
	}{
		{"hello world", []string{"alt+b"}, "hello |world"},
		{"hello world", []string{"alt+b", "alt+b"}, "|hello world"},
		{"hello world", []string{"home", "alt+f"}, "hello| world"},
		{"hello world  ", []string{"ctrl+w"}, "hello |"},
		{"hello world", []string{"home", "alt+d"}, "| world"},
		{"hello world", []string{"left", "left", "ctrl+k"}, "hello wor|"},
		{"hello world", []string{"left", "left", "ctrl+u"}, "|ld"},
		{"one\ntwo", []string{"home", "backspace"}, "one|two"},
		{"one\ntwo", []string{"up", "ctrl+e", "delete"}, "one|two"},
		{"one\ntwo", []string{"ctrl+home"}, "|one\ntwo"},
		{"one\ntwo", []string{"ctrl+home", "ctrl+end"}, "one\ntwo|"},
		{"one\ntwo", []string{"home", "left"}, "one|\ntwo"},
		{"one\ntwo", []string{"ctrl+home", "alt+u"}, "ONE|\ntwo"},
		{"one two", []string{"home", "alt+c", "alt+c"}, "One Two|"},
		{"ab", []string{"ctrl+t"}, "ba|"},
		{"one two", []string{"home", "right", "shift+enter"}, "o\n|ne two"},
		{"a\tb", nil, "a    b|"},
	}
	for _, c := range cases {
		e := editorPress(editorWith(c.text, 40), c.keys...)
		got := cursorText(e)
		if got != c.want {
			t.Errorf("%q after %v: %q, want %q", c.text, c.keys, got, c.want)
		}
	}
}

func cursorText(e editor) string {
	var b strings.Builder
	for i, l := range e.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == e.row {
			b.WriteString(string(l[:e.col]) + "|" + string(l[e.col:]))
		} else {
			b.WriteString(string(l))
		}
	}
	return b.String()
}

// TestEditorUpDownFollowWrappedRows: up and down move one visual row of a
// wrapped line, keeping the column, and the view scrolls to the cursor.
func TestEditorUpDownFollowWrappedRows(t *testing.T) {
	e := editorWith(strings.Repeat("abcd ", 20), 10) // 10 rows of "abcd abcd "
	e.MaxHeight = 3
	e.scrollToCursor()
	if got := e.View(); !strings.Contains(got, "abcd abcd") || strings.Count(got, "\n") != 2 {
		t.Fatalf("view %q", got)
	}
	e = editorPress(e, "home", "right", "right")
	e = editorPress(e, "down")
	if r, c := e.cursorRow(); r != 1 || c != 2 || e.col != 12 {
		t.Fatalf("after down: row %d col %d offset %d", r, c, e.col)
	}
	e = editorPress(e, "up", "up")
	if r, _ := e.cursorRow(); r != 0 || e.col != 2 || e.top != 0 {
		t.Fatalf("after up up: row %d offset %d top %d", r, e.col, e.top)
	}
	e = editorPress(e, "ctrl+end")
	if r, _ := e.cursorRow(); e.top != r-2 {
		t.Fatalf("cursor row %d not shown from top %d", r, e.top)
	}
}

// TestEditorKeyCostIsFlat: a key in a 30,000-character draft re-wraps a
// few rows, not the draft: the rows wrapped per key are counted, not timed.
func TestEditorKeyCostIsFlat(t *testing.T) {
	for _, n := range []int{300, 30000} {
		e := editorWith(strings.Repeat("a long draft line with words ", n/29+1)[:n], 76)
		e.MaxHeight = 12
		before := slices.Clone(e.starts[0])
		e = editorPress(e, "x")
		changed := 0
		for i, s := range e.starts[0] {
			if i >= len(before) || before[i] != s {
				changed++
			}
		}
		if changed > 2 {
			t.Fatalf("%d characters: %d row starts changed by one key", n, changed)
		}
		if v := e.View(); strings.Count(v, "\n")+1 != min(12, e.rows) {
			t.Fatalf("%d characters: view has %d rows", n, strings.Count(v, "\n")+1)
		}
	}
}

// TestUnbracketedBurstAppearsPromptly: 3,000 characters typed as separate
// key presses (a paste without bracketed paste) all land, and the model
// handles them as fast as a terminal sends them (the frame is drawn at
// the end, as the renderer does between frames).
func TestUnbracketedBurstAppearsPromptly(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	text := strings.Repeat("fmt.Println(x) ", 200)
	for _, r := range text {
		mm, _ := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		m = mm.(Model)
	}
	if got := m.composer.Value(); got != text {
		t.Fatalf("composer holds %d characters, want %d", len(got), len(text))
	}
	if rows := composerRows(screen(m)); !strings.Contains(rows[len(rows)-1], "fmt.Println(x)") {
		t.Fatalf("last row %q", rows[len(rows)-1])
	}
}

// keyMsg is the key press String() spells as k ("alt+b", "ctrl+home").
func keyMsg(k string) tea.KeyPressMsg {
	parts := strings.Split(k, "+")
	var msg tea.KeyPressMsg
	for _, mod := range parts[:len(parts)-1] {
		msg.Mod |= map[string]tea.KeyMod{"ctrl": tea.ModCtrl, "alt": tea.ModAlt, "shift": tea.ModShift}[mod]
	}
	named := map[string]rune{"home": tea.KeyHome, "end": tea.KeyEnd, "left": tea.KeyLeft, "right": tea.KeyRight,
		"up": tea.KeyUp, "down": tea.KeyDown, "backspace": tea.KeyBackspace, "delete": tea.KeyDelete,
		"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown}
	name := parts[len(parts)-1]
	if c, ok := named[name]; ok {
		msg.Code = c
	} else {
		msg.Code = []rune(name)[0]
		if msg.Mod == 0 {
			msg.Text = name
		}
	}
	if got := msg.String(); got != k {
		panic(fmt.Sprintf("keyMsg(%q) spells %q", k, got))
	}
	return msg
}
