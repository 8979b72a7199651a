package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// projectHostEnv: the project ships .grove/agents/deploy.md saying
// `host: prod`; [hosts.prod] is configured (this machine stands in for
// it); the root spawns a deploy agent twice.
func projectHostEnv(t *testing.T, headless bool, opened *int) *testEnv {
	t.Helper()
	return newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s1", "spawn_agent", map[string]any{"message": "x", "agent_type": "deploy"})), nil
			case 1:
				return calls(toolCall("s2", "spawn_agent", map[string]any{"message": "x", "agent_type": "deploy"})), nil
			}
			return text("done"), nil
		},
		"deploy": func(context.Context, turn) (model.Response, error) { return text("deployed"), nil },
	}, func(o *Options) {
		dir := filepath.Join(o.Cwd, ".grove", "agents")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "deploy.md"), []byte("---\ndescription: deploys\nhost: prod\n---\ndeploy\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Templates = templates.Load(templates.Dirs{Cwd: o.Cwd, GroveHome: o.Home}, templates.Options{})
		o.Headless = headless
		o.OpenHost = func(name string) (execenv.Backend, string, error) {
			*opened++
			return execenv.NewLocal(), o.Cwd, nil
		}
	})
}

// Issue 31 item 10: with nobody to ask, a host named by project content
// is refused, saying which template and host.
func TestProjectTemplateHostRefusedHeadless(t *testing.T) {
	opened := 0
	env := projectHostEnv(t, true, &opened)
	env.send("go")
	env.rootFinal(1)
	out := env.toolOutput("s1")
	if !out.IsError || !strings.Contains(out.Output, `host "prod" named by the project's template`) || !strings.Contains(out.Output, "deploy.md") {
		t.Fatalf("spawn: %+v", out)
	}
	if n := len(env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventThreadStarted && ev.Thread != nil && ev.Thread.Host == "prod"
	})); n != 0 {
		t.Fatalf("%d agents started on prod", n)
	}
}

// Asked once per host per project: the user's yes is recorded, the second
// spawn is not asked again, and the record names the project.
func TestProjectTemplateHostAskedOnceAndRecorded(t *testing.T) {
	opened := 0
	env := projectHostEnv(t, false, &opened)
	go func() {
		ev := env.waitFor("host approval", func(ev protocol.Event) bool {
			return ev.Type == protocol.EventApprovalRequested && ev.Approval.Host == "prod"
		})
		_ = env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: protocol.DecisionApproved})
	}()
	env.send("go")
	env.rootFinal(1)
	for _, id := range []string{"s1", "s2"} {
		if out := env.toolOutput(id); out.IsError {
			t.Fatalf("%s: %s", id, out.Output)
		}
	}
	if n := len(env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })); n != 1 {
		t.Errorf("%d approvals asked, want 1", n)
	}
	b, err := os.ReadFile(filepath.Join(env.home, "project_hosts.json"))
	if err != nil || !strings.Contains(string(b), `"`+env.cwd+`"`) || !strings.Contains(string(b), `"prod"`) {
		t.Fatalf("record %s (%v)", b, err)
	}
}
