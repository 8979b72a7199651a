package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

const (
	// pasteChipLines: a paste of at least this many lines shows as a chip
	// ("[pasted 30 lines #1]") and is expanded when the message is sent.
	pasteChipLines = 10
	// pasteChipBytes: so does a paste this long on fewer lines.
	pasteChipBytes = 2000
	// composerContentRows bounds what the composer holds (in wrapped
	// rows); large pastes become chips, so only typing could reach it.
	composerContentRows = 5000
)

// newComposer is the input box: it grows with its content (wrapped rows
// count) up to a maximum set from the window height, then scrolls with the
// cursor; it never drops a newline.
func newComposer() editor {
	ed := newEditor()
	ed.Placeholder = "Ask grove anything · / for commands · ? for help"
	ed.MaxHeight = composerMaxRows(24)
	ed.MaxRows = composerContentRows
	ed.Focus()
	return ed
}

// composerMaxRows is how tall the composer may grow in a window h rows high.
func composerMaxRows(h int) int {
	return max(1, min(12, h/3))
}

// pastes holds the text behind the chips in the composer.
type pastes struct {
	n      int
	chips  []string
	bodies map[string]string
}

// chip stores a large paste and returns the placeholder to insert; small
// pastes are returned as they are.
func (p *pastes) chip(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if lines < pasteChipLines && len(text) < pasteChipBytes {
		return text
	}
	p.n++
	label := fmt.Sprintf("[pasted %d lines #%d]", lines, p.n)
	if lines == 1 {
		label = fmt.Sprintf("[pasted %d chars #%d]", len([]rune(text)), p.n)
	}
	if p.bodies == nil {
		p.bodies = map[string]string{}
	}
	p.chips = append(p.chips, label)
	p.bodies[label] = text
	return label
}

// expand replaces every chip still in s by its text; a chip the user
// edited is no longer a chip and stays as typed.
func (p *pastes) expand(s string) string {
	for _, c := range p.chips {
		s = strings.ReplaceAll(s, c, p.bodies[c])
	}
	return s
}

func (p *pastes) reset() { *p = pastes{n: p.n} }

// paste inserts a bracketed paste into the composer (as a chip when large).
func (m *Model) paste(msg tea.PasteMsg) {
	m.composer.InsertString(m.pastes.chip(msg.Content))
}

// composerText is what sending would submit: the composer with its chips
// expanded.
func (m *Model) composerText() string {
	return m.pastes.expand(m.composer.Value())
}

// clearComposer empties the composer and forgets its pastes.
func (m *Model) clearComposer() {
	m.composer.Reset()
	m.pastes.reset()
}

// composerLines renders the composer: a rule naming who receives the
// message (or the slash-command hints), then the input rows.
func (m Model) composerLines() []string {
	target := "root"
	if t := m.sess.threads[m.focused]; t != nil {
		target = t.fullName()
	}
	label := m.th.dim.Render(" " + clip("to "+target, max(1, m.w-4)) + " ")
	if m.info.ReadOnly != "" {
		label = m.th.warn.Render(" " + clip("read-only: input is refused", max(1, m.w-4)) + " ")
	}
	border := m.th.composerBorder.Render(strings.Repeat("─", max(0, m.w-lipglossWidth(label)-2)))
	lines := []string{m.th.composerBorder.Render("──") + label + border}
	lines = append(append(m.slashMenuLines(), m.skillMenuLines()...), lines...)
	if m.search != nil {
		lines[0] = m.searchLine()
	}
	rows := strings.Split(m.composer.View(), "\n")
	for _, l := range rows[:min(len(rows), m.composerRows())] {
		lines = append(lines, padRight(" "+l, m.w))
	}
	for len(lines) < m.slashRows()+1+m.composerRows() {
		lines = append(lines, strings.Repeat(" ", m.w))
	}
	return lines
}
