package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
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
	for _, sec := range helpSections() {
		for _, b := range sec.keys {
			kw = max(kw, lipglossWidth(b.Help().Key))
		}
	}
	h := m.helpView(m.th.key.Width(kw + 1))
	lines := []string{m.th.paneTitle.Render("Keys"), ""}
	lines = append(lines, strings.Split(h.FullHelpView(keys.FullHelp()), "\n")...)
	// Each layer's keys, from the bindings it matches (layer_keys.go).
	for _, sec := range helpSections() {
		lines = append(lines, "", m.th.paneTitle.Render(sec.title))
		lines = append(lines, strings.Split(h.FullHelpView([][]key.Binding{sec.keys}), "\n")...)
	}
	lines = append(lines, "", m.th.paneTitle.Render("Commands"))
	for _, c := range slashCommands {
		lines = append(lines, k(c.name)+strings.Repeat(" ", kw-lipglossWidth(c.name)+2)+c.help)
	}
	mouse := "on"
	if !m.mouse {
		mouse = "off"
	}
	lines = append(lines, "", m.th.dim.Render("mouse capture is "+mouse+" · press any key to close"))
	return wrapHelp(lines, kw+2, m.w)
}

// wrapHelp wraps the help's rows wider than the screen under their
// description (issue 35 item 22: cut at 80 columns, it hid what keys do).
func wrapHelp(lines []string, indent, w int) []string {
	var out []string
	for _, l := range lines {
		if lipglossWidth(l) <= w || w <= indent+10 {
			out = append(out, l)
			continue
		}
		plain := ansiStrip(l)
		head, rest := plain, ""
		if len([]rune(plain)) > indent {
			head, rest = string([]rune(plain)[:indent]), string([]rune(plain)[indent:])
		}
		for i, part := range wrap(rest, w-indent) {
			if i == 0 {
				out = append(out, head+part)
			} else {
				out = append(out, strings.Repeat(" ", indent)+part)
			}
		}
	}
	return out
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
