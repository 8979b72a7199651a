package appserver

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// thread/compact/start summarises an idle thread's history: the answer is
// Codex's empty object, thread/compacted follows, and the next turn's
// request starts from the summary.
func TestThreadCompactStart(t *testing.T) {
	var mu sync.Mutex
	var last model.Request
	f := newFixture(t, func(_ context.Context, req model.Request) (model.Response, error) {
		mu.Lock()
		last = req
		mu.Unlock()
		if n := len(req.Items); n > 0 && strings.HasPrefix(req.Items[n-1].Content, "You are performing a CONTEXT CHECKPOINT COMPACTION") {
			return model.Response{Text: "THE SUMMARY"}, nil
		}
		return model.Response{Text: "ok"}, nil
	})
	c := f.start(t)
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	c.result("turn/start", turnInput(root, "first ask"))
	c.notification("turn/completed", func(p map[string]any) bool { return p["threadId"] == root })

	if r := c.result("thread/compact/start", map[string]any{"threadId": root}); len(r) != 0 {
		t.Fatalf("result %v", r)
	}
	c.notification("thread/compacted", func(p map[string]any) bool { return p["threadId"] == root })

	c.result("turn/start", turnInput(root, "next ask"))
	c.notification("turn/completed", func(p map[string]any) bool { return p["threadId"] == root })
	var texts []string
	mu.Lock()
	defer mu.Unlock()
	for _, it := range last.Items {
		texts = append(texts, it.Content)
	}
	got := strings.Join(texts, "|")
	if !strings.Contains(got, "first ask|") || !strings.Contains(got, "THE SUMMARY|next ask") || strings.Contains(got, "|ok|") {
		t.Fatalf("request after compaction: %q", got)
	}
	m := c.call("thread/compact/start", map[string]any{"threadId": "nope"})
	if m["error"] == nil || !strings.Contains(str(m, "error", "message"), "not loaded") {
		t.Fatalf("unknown thread: %v", m)
	}
	c.close()
}
