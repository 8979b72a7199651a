package appserver

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A hosted web search of a reply reaches the client as Codex's webSearch
// item (started and completed; checked against Codex 0.169's schema).
func TestAppServerWebSearchItem(t *testing.T) {
	f := newFixture(t, func(context.Context, model.Request) (model.Response, error) {
		return model.Response{Text: "found it", WebSearches: []protocol.WebSearchCall{
			{ID: "ws_1", Status: "completed", Action: "search", Query: "grove tui"},
			{ID: "ws_2", Status: "completed", Action: "open_page", URL: "https://example.com/doc"},
		}}, nil
	})
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	c.result("turn/start", turnInput(root, "search"))
	done := c.notification("item/completed", func(m map[string]any) bool { return str(m, "item", "type") == "webSearch" })
	if str(done, "item", "query") != "grove tui" || str(done, "item", "action", "type") != "search" {
		t.Fatalf("webSearch item: %v", done)
	}
	page := c.notification("item/completed", func(m map[string]any) bool { return str(m, "item", "id") == "ws_2" })
	if str(page, "item", "action", "type") != "openPage" || str(page, "item", "action", "url") != "https://example.com/doc" {
		t.Fatalf("openPage item: %v", page)
	}
	c.notification("turn/completed", nil)
}
