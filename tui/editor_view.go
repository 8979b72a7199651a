package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The editor's look: the textarea's dark defaults grove used (a steady
// block cursor, a dim placeholder and blurred text).
var (
	editorPromptStyle      = lipgloss.NewStyle().Foreground(lipgloss.Color("7"))
	editorCursorStyle      = lipgloss.NewStyle().Reverse(true)
	editorPlaceholderStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("240"))
	editorBlurredStyle     = lipgloss.NewStyle().Foreground(lipgloss.Color("7"))
)

// View renders the rows shown (Height of them, from top): only those are
// rendered, whatever the draft's length.
func (e *editor) View() string {
	if e.value == "" && e.Placeholder != "" {
		return e.placeholderView()
	}
	h := e.Height()
	out := make([]string, 0, h)
	line, sub := e.rowAt(e.top)
	for v := e.top; v < e.top+h && line < len(e.lines); v++ {
		out = append(out, e.rowView(v, line, sub))
		if sub++; sub >= len(e.starts[line]) {
			line, sub = line+1, 0
		}
	}
	return strings.Join(out, "\n")
}

// prompt is the prompt of visual row v.
func (e *editor) prompt(v int) string {
	if v == 0 {
		return editorPromptStyle.Render("› ")
	}
	return "  "
}

// rowView renders visual row v: row sub of line, with the cursor on it
// when it is there.
func (e *editor) rowView(v, line, sub int) string {
	l, starts := e.lines[line], e.starts[line]
	s, end := starts[sub], len(l)
	if sub+1 < len(starts) {
		end = starts[sub+1]
	}
	text := l[s:end]
	// Spaces hanging past the width are not drawn.
	for len(text) > 0 && text[len(text)-1] == ' ' && rowWidth(text, 0, len(text)) > e.width {
		text = text[:len(text)-1]
	}
	var b strings.Builder
	b.WriteString(e.prompt(v))
	cur := -1
	if e.focused && line == e.row && rowOf(starts, e.col) == sub {
		cur = e.col - s
	}
	style := lipgloss.NewStyle()
	if !e.focused {
		style = editorBlurredStyle
	}
	switch {
	case cur < 0:
		b.WriteString(style.Render(string(text)))
	case cur < len(text):
		b.WriteString(string(text[:cur]))
		b.WriteString(editorCursorStyle.Render(string(text[cur])))
		b.WriteString(string(text[cur+1:]))
	default:
		b.WriteString(string(text))
		b.WriteString(editorCursorStyle.Render(" "))
	}
	return b.String()
}

// placeholderView is the empty composer: the placeholder's first row with
// the cursor on its first character.
func (e *editor) placeholderView() string {
	p := ansi.Hardwrap(ansi.Wordwrap(e.Placeholder, e.width, ""), e.width, true)
	first, _, _ := strings.Cut(strings.TrimSpace(p), "\n")
	head, rest := first, ""
	if r := []rune(first); len(r) > 0 {
		head, rest = string(r[:1]), string(r[1:])
	}
	if e.focused {
		head = editorCursorStyle.Render(head)
	} else {
		head = editorPlaceholderStyle.Render(head)
	}
	return e.prompt(0) + head + editorPlaceholderStyle.Render(rest)
}
