package tui

import (
	"strings"
)

// helpKeys lists the keys shown in ? help, in order.
var helpKeys = [][2]string{
	{"enter", "send to the focused agent"},
	{"shift+enter ctrl+j", "new line"},
	{"↑ ↓", "history (composer empty)"},
	{"ctrl+r", "search this project's input history"},
	{"tab", "switch between composer and agent tree"},
	{"↑ ↓ j k, enter", "in the tree: move, focus that agent (or click it)"},
	{"esc", "back to the root agent / close overlays"},
	{"pgup pgdn home end", "scroll the transcript (mouse wheel too)"},
	{"ctrl+o", "expand / collapse the last tool output"},
	{"ctrl+f, / in the tree", "search the transcript (enter next, n/N, esc)"},
	{"ctrl+t", "agents table (sort with s, filter with /)"},
	{"ctrl+b", "show / hide the agent tree"},
	{"alt+m f2", "mouse capture on / off (off: select and copy text)"},
	{"ctrl+c", "interrupt the focused agent and its sub-agents; twice quits"},
	{"tab (approval)", "answer it; typing goes to the composer until then"},
	{"↑ ↓ enter", "approval: choose and answer"},
	{"y a n esc", "approval: once, for session (confirmed), deny, abort"},
}

func (m Model) helpLines() []string {
	k := m.th.key.Render
	kw := 0
	for _, h := range helpKeys {
		kw = max(kw, lipglossWidth(h[0]))
	}
	for _, c := range slashCommands {
		kw = max(kw, lipglossWidth(c.name))
	}
	row := func(key, what string) string {
		return k(key) + strings.Repeat(" ", kw-lipglossWidth(key)+2) + what
	}
	lines := []string{m.th.paneTitle.Render("Keys"), ""}
	for _, h := range helpKeys {
		lines = append(lines, row(h[0], h[1]))
	}
	lines = append(lines, "", m.th.paneTitle.Render("Commands"))
	for _, c := range slashCommands {
		lines = append(lines, row(c.name, c.help))
	}
	mouse := "on"
	if !m.mouse {
		mouse = "off"
	}
	lines = append(lines, "", m.th.dim.Render("mouse capture is "+mouse+" · press any key to close"))
	return lines
}
