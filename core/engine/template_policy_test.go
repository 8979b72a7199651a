package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// A template whose allow list maps to no grove tool spawns an agent with
// no tools at all (and says so); one with read_only: banana is refused
// with its file and line instead of running writable.
func TestTemplatePolicyEdgesAtSpawn(t *testing.T) {
	seen := make(chan int, 2)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("web", "spawn_agent", map[string]any{"agent_type": "webby", "message": "look it up"}),
					toolCall("empty", "spawn_agent", map[string]any{"agent_type": "empty", "message": "do it"}),
					toolCall("ro", "spawn_agent", map[string]any{"agent_type": "auditor", "message": "audit"}),
				), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("web")), agentIDFrom(tn.output("empty"))}})), nil
			}
			return text("done"), nil
		},
		"webby": func(_ context.Context, tn turn) (model.Response, error) {
			seen <- len(tn.req.Tools)
			return text("no tools here"), nil
		},
		"empty": func(_ context.Context, tn turn) (model.Response, error) {
			seen <- len(tn.req.Tools)
			return text("none either"), nil
		},
	}, func(o *Options) {
		dir := filepath.Join(o.Cwd, ".grove", "agents")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{
			"webby.md":   "---\nname: webby\ndescription: browses\ntools: WebFetch, WebSearch\n---\nBrowse.\n",
			"empty.md":   "---\ndescription: nothing allowed\nallow_list: []\n---\nNothing.\n",
			"auditor.md": "---\ndescription: audits\nread_only: banana\n---\nAudit.\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		o.Templates = templates.Load(templates.Dirs{Cwd: o.Cwd, GroveHome: o.Home}, templates.Options{})
	})
	env.send("go")
	env.rootFinal(1)
	for range 2 {
		if n := <-seen; n != 0 {
			t.Fatalf("an agent whose allow list names nothing was offered %d tools", n)
		}
	}
	for _, id := range []string{"web", "empty"} {
		child := spawnedID(t, env.toolOutput(id).Output)
		env.e.thread(child).mu.Lock()
		specs := len(env.e.thread(child).specs)
		env.e.thread(child).mu.Unlock()
		if specs != 0 {
			t.Fatalf("%s child has %d tool specs", id, specs)
		}
	}
	if out := env.toolOutput("ro"); !out.IsError || !strings.Contains(out.Output, filepath.Join(".grove", "agents", "auditor.md")+":3") || !strings.Contains(out.Output, "banana") {
		t.Fatalf("read_only: banana should refuse the spawn naming file and line: %+v", out)
	}
	for _, want := range []string{"tools (WebFetch, WebSearch) names no grove tool", "allow_list is empty"} {
		env.waitFor(fmt.Sprintf("warning %q", want), func(ev protocol.Event) bool {
			return ev.Type == protocol.EventWarning && ev.ThreadID == env.root && strings.Contains(ev.Message, want) && strings.Contains(ev.Message, "gets no tools")
		})
	}
}
