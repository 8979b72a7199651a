package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// helpView renders key bindings with grove's theme: keys in the key style,
// descriptions plain, so the status line keeps its own colours.
func (m Model) helpView(keyStyle lipgloss.Style) help.Model {
	h := help.New()
	h.ShortSeparator = "  "
	h.Styles = help.Styles{ShortKey: keyStyle, FullKey: keyStyle}
	return h
}

func (m Model) helpLines() []string {
	k := m.th.key.Render
	// Keys and commands share one column width, so both lists align.
	kw := 0
	for _, b := range keys.FullHelp()[0] {
		kw = max(kw, lipglossWidth(b.Help().Key))
	}
	for _, c := range slashCommands {
		kw = max(kw, lipglossWidth(c.name))
	}
	h := m.helpView(m.th.key.Width(kw + 1))
	lines := []string{m.th.paneTitle.Render("Keys"), ""}
	lines = append(lines, strings.Split(h.FullHelpView(keys.FullHelp()), "\n")...)
	lines = append(lines, "", m.th.paneTitle.Render("Commands"))
	for _, c := range slashCommands {
		lines = append(lines, k(c.name)+strings.Repeat(" ", kw-lipglossWidth(c.name)+2)+c.help)
	}
	mouse := "on"
	if !m.mouse {
		mouse = "off"
	}
	lines = append(lines, "", m.th.dim.Render("mouse capture is "+mouse+" · press any key to close"))
	return lines
}

// helpWindow is the part of the help that fits in h rows, from helpTop;
// when some is cut, the last row says how to see it.
func (m Model) helpWindow(h int) []string {
	lines := m.helpLines()
	if len(lines) <= h {
		return lines
	}
	top := min(m.helpTop, len(lines)-h)
	win := append([]string(nil), lines[top:top+h]...)
	more := fmt.Sprintf("↑↓ pgup/pgdn scroll · lines %d–%d of %d · any other key closes", top+1, top+h-1, len(lines))
	if top+h >= len(lines) {
		return win // the end: its own last line says how to close
	}
	win[h-1] = m.th.warn.Render(clip(more, m.w))
	return win
}
