package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// pngBytes is the smallest thing that is a PNG by content.
const pngBytes = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

// Issue 31.2: a command makes screenshot.png -> /proc/self/environ and a
// spawn_agent item names it. grove must refuse the read (the tool call
// fails with the reason) and no model request may carry an image of it;
// a real PNG by a relative path (against the caller's cwd) still works.
func TestSpawnLocalImageRefusesProcSymlink(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs is Linux's")
	}
	var mu sync.Mutex
	var images []string
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("leak", "spawn_agent", map[string]any{"agent_type": "worker", "items": []map[string]any{
					{"type": "text", "text": "describe it"}, {"type": "local_image", "path": "screenshot.png"},
				}})), nil
			case 1:
				return calls(toolCall("ok", "spawn_agent", map[string]any{"agent_type": "worker", "items": []map[string]any{
					{"type": "text", "text": "describe it"}, {"type": "local_image", "path": "sub/real.png"},
				}})), nil
			case 2:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("ok"))}})), nil
			}
			return text("done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			mu.Lock()
			defer mu.Unlock()
			for _, it := range tn.req.Items {
				images = append(images, it.Images...)
			}
			return text("seen"), nil
		},
	}, nil)
	if err := os.Symlink("/proc/self/environ", filepath.Join(env.cwd, "screenshot.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.cwd, "sub", "real.png"), []byte(pngBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("go")
	env.rootFinal(1)
	leak := env.toolOutput("leak")
	if !leak.IsError || !strings.Contains(leak.Output, "/proc") {
		t.Fatalf("spawn with a /proc symlink image: error=%v %q", leak.IsError, leak.Output)
	}
	if ok := env.toolOutput("ok"); ok.IsError {
		t.Fatalf("spawn with a real PNG failed: %s", ok.Output)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(images) != 1 || !strings.HasPrefix(images[0], "data:image/png;base64,") {
		t.Fatalf("the child saw images %v, want exactly the real PNG", clipImages(images))
	}
}

// A -i image (the user's op) is read the same way: by content, not name.
func TestUserTurnImageTypeByContent(t *testing.T) {
	env := newEnv(t, script{"root": func(context.Context, turn) (model.Response, error) { return text("ok"), nil }}, nil)
	fake := filepath.Join(env.cwd, "notes.png")
	if err := os.WriteFile(fake, []byte("DATABASE_URL=postgres://u:p@h/db"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := env.e.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: env.root, Items: []protocol.InputItem{
		{Type: "text", Text: "look"}, {Type: "local_image", Path: fake},
	}})
	if err == nil || !strings.Contains(err.Error(), "not a PNG, JPEG, GIF or WebP image") {
		t.Fatalf("a text file named .png was accepted: %v", err)
	}
}

func clipImages(images []string) []string {
	var out []string
	for _, s := range images {
		out = append(out, clipText(s))
	}
	return out
}
