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
	} {
		if err := c.event(protocol.NewEvent("root", "t1", protocol.WebSearchMsg{Call: ws})); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out.String())
	}
	for _, l := range lines {
		checkCodexShape(t, l)
	}
	if !strings.Contains(lines[0], `"query":"bubbletea v2 paste"`) || !strings.Contains(lines[1], `"query":"https://go.dev/doc"`) {
		t.Fatalf("queries: %q", lines)
	}
}
