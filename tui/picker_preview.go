package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// pickerPreviewLines bounds the messages a preview keeps.
const pickerPreviewLines = 40

// preview reads the session under the cursor in a command: its root's
// conversation, each message labelled by who wrote it, and how many
// messages it holds.
func (p *picker) preview() tea.Cmd {
	list := p.visible()
	if p.cursor >= len(list) {
		return nil
	}
	e := list[p.cursor]
	if _, ok := p.previews[e.ID]; ok || e.RolloutPath == "" {
		return nil
	}
	p.previews[e.ID] = nil // in flight
	return func() tea.Msg {
		s, err := rollout.Read(e.RolloutPath)
		if err != nil {
			return pickerPreviewMsg{id: e.ID, lines: []string{"cannot read " + e.RolloutPath + ": " + err.Error()}}
		}
		lines, n := previewMessages(s.Items)
		return pickerPreviewMsg{id: e.ID, lines: lines, messages: n}
	}
}

// previewMessages labels the conversation's messages and counts them. A
// sub-agent's report to the root is the agent's, not the user's, and
// grove's own notices (hook context, compaction summaries) are neither:
// they are not shown or counted.
func previewMessages(items []protocol.Item) ([]string, int) {
	var lines []string
	n := 0
	for _, it := range items {
		if it.Type != protocol.ItemMessage || it.IsGroveNotice() || it.Content == "" {
			continue
		}
		n++
		if len(lines) >= pickerPreviewLines {
			continue
		}
		who := "you"
		switch it.Role {
		case protocol.RoleAssistant:
			who = "grove"
		case protocol.RoleAgent:
			who = "agent " + it.From.Short()
		}
		lines = append(lines, who+": "+firstLine(it.Content))
	}
	return lines, n
}

// previewMeta is the preview's line under the id: model and the counts.
func (p *picker) previewMeta(e rollout.IndexEntry) string {
	var parts []string
	if e.Model != "" {
		parts = append(parts, e.Model)
	}
	if n, ok := p.messages[e.ID]; ok && p.previews[e.ID] != nil {
		parts = append(parts, plural(n, "message"))
	}
	if e.ChildCount > 0 {
		parts = append(parts, plural(e.ChildCount, "sub-agent"))
	}
	if h, ok := p.held[e.ID]; ok && e.ID != p.current {
		parts = append(parts, h.words(e.ID))
	}
	return strings.Join(parts, " · ")
}
