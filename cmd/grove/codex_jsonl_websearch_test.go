package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// A hosted web search of the root's reply is a completed web_search item
// with its query, in the shape of Codex's exec_events.rs WebSearchItem.
func TestCodexJSONLWebSearch(t *testing.T) {
	var out bytes.Buffer
	c := newCodexJSONL(&out, "root")
	for _, ws := range []protocol.WebSearchCall{
		{ID: "ws_1", Status: "completed", Action: "search", Query: "bubbletea v2 paste"},
		{ID: "ws_2", Status: "completed", Action: "open_page", URL: "https://go.dev/doc"},
		{ID: "ws_3", Status: "completed", Action: "find_in_page", URL: "https://go.dev/doc", Pattern: "generics"},
		{ID: "ws_4", Status: "completed"},
	} {
		if err := c.event(protocol.NewEvent("root", "t1", protocol.WebSearchMsg{Call: ws})); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 lines, got %q", out.String())
	}
	for _, l := range lines {
		checkCodexShape(t, l)
	}
	if !strings.Contains(lines[0], `"query":"bubbletea v2 paste"`) || !strings.Contains(lines[1], `"query":"https://go.dev/doc"`) {
		t.Fatalf("queries: %q", lines)
	}
	// The action, as codex_protocol models.rs WebSearchAction serializes it.
	for i, want := range []string{
		`"action":{"type":"search","query":"bubbletea v2 paste"}`,
		`"action":{"type":"open_page","url":"https://go.dev/doc"}`,
		`"action":{"type":"find_in_page","url":"https://go.dev/doc","pattern":"generics"}`,
		`"action":{"type":"other"}`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: want %s in %s", i, want, lines[i])
		}
	}
}
