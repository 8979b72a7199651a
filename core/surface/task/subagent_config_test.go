package task

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
)

// Seed 004 §5.3: SubagentConfig enabled = false removes the Task tools
// and the prompt section about them; a Task call then finds no tool.
func TestSubagentDisabledRemovesTheTaskTools(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		c := newScripted(nil)
		c.Reply = func(role string, req model.Request) model.Response {
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "done"}
			}
			return call("t1", "Task", `{"subagent_type":"Explore","prompt":"look","description":"look around"}`)
		}
		if !disabled {
			c.Reply = func(string, model.Request) model.Response { return model.Response{Text: "done"} }
		}
		e, root := start(t, c, setup{disabled: disabled})
		runRoot(t, e, root, "go")
		req := c.Requests("root")[0]
		names := toolNames(req)
		hasTools := slices.Contains(names, "Task") && slices.Contains(names, "TaskOutput")
		hasSection := strings.Contains(req.Instructions, "# Working with sub-agents")
		if hasTools == disabled || hasSection == disabled {
			t.Errorf("disabled=%v: Task tools offered=%v, section=%v (tools %v)", disabled, hasTools, hasSection, names)
		}
		if disabled {
			if out := rawOutput(c, "t1"); out == "" || len(c.Requests("Explore")) != 0 {
				t.Errorf("a Task call with the tools removed: output %q, Explore ran %d times", out, len(c.Requests("Explore")))
			}
		}
	}
}

const noLimitsYAML = `agentType: counter
whenToUse: counts files
tools: [list_dir]
`

// default_max_turns applies to a definition that sets no maxTurns; the
// built-ins keep the limits seed 004 §4 gives them.
func TestSubagentDefaultMaxTurns(t *testing.T) {
	c := limitScript(true)
	e, root := start(t, c, setup{
		cwd:      project(t, map[string]string{"counter.yaml": noLimitsYAML}),
		defaults: Defaults{MaxTurns: 2},
	})
	runRoot(t, e, root, "go")
	out := toolOutput(t, c, "t1")
	if out["status"] != "max_turns" || len(c.Requests("counter")) != 3 {
		t.Errorf("result = %v after %d requests, want max_turns after 2 turns + the grace step", out, len(c.Requests("counter")))
	}
	reg := NewRegistry(nil, Defaults{MaxTurns: 2, MaxTime: time.Second})
	if ex, _ := reg.Lookup("Explore"); ex.MaxTurns != 30 || ex.MaxTime != 120*time.Second {
		t.Errorf("Explore's own limits changed: %d turns, %v", ex.MaxTurns, ex.MaxTime)
	}
}

// default_timeout_seconds applies to a definition that sets no
// maxTimeSeconds: the agent's first request outlives it and the run ends
// as a timeout after its grace step.
func TestSubagentDefaultTimeout(t *testing.T) {
	b := newBlocking(1)
	b.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"counter","prompt":"count","description":"count files"}`)
		}
		return model.Response{Text: "no answer yet"}
	}
	e, root := start(t, b, setup{
		cwd:      project(t, map[string]string{"counter.yaml": noLimitsYAML}),
		defaults: Defaults{MaxTime: 50 * time.Millisecond},
	})
	runRoot(t, e, root, "go")
	out := toolOutput(t, b.Scripted, "t1")
	if out["status"] != "timeout" {
		t.Errorf("result = %v, want timeout from the default time limit", out)
	}
	// The blocked first request never reaches the script; the grace step does.
	reqs := b.Requests("counter")
	if len(reqs) != 1 || !strings.HasPrefix(lastUser(reqs[0]), "You have exceeded the time limit.") {
		t.Errorf("counter's answered requests = %d, want only the grace step", len(reqs))
	}
}

// agents_dir adds a user directory of definitions: its agents are
// offered, and a project definition of the same type shadows them.
func TestSubagentAgentsDir(t *testing.T) {
	dir := t.TempDir()
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "reviewer.yaml"), "agentType: reviewer\nwhenToUse: reviews\npromptConfig:\n  systemPrompt: FROM-AGENTS-DIR\n")
	write(filepath.Join(dir, "auditor.md"), "---\nagentType: auditor\nwhenToUse: audits\n---\nFROM-AGENTS-DIR-AUDITOR\n")
	proj := project(t, map[string]string{"reviewer.yaml": "agentType: reviewer\nwhenToUse: reviews\npromptConfig:\n  systemPrompt: FROM-PROJECT\n"})

	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			o := outputs(req)
			switch {
			case o["a"] == "":
				return call("a", "Task", `{"subagent_type":"auditor","prompt":"audit","description":"audit"}`)
			case o["r"] == "":
				return call("r", "Task", `{"subagent_type":"reviewer","prompt":"review","description":"review"}`)
			}
			return model.Response{Text: "done"}
		}
		return call("c", "complete_task", `{"result":"ok"}`)
	}
	e, root := start(t, c, setup{cwd: proj, agentsDir: dir})
	runRoot(t, e, root, "go")
	if out := toolOutput(t, c, "a"); out["status"] != "goal" {
		t.Fatalf("auditor from agents_dir: %v", out)
	}
	if got := c.Requests("auditor"); len(got) == 0 || !strings.Contains(got[0].Instructions, "FROM-AGENTS-DIR-AUDITOR") {
		t.Errorf("auditor did not get its agents_dir prompt")
	}
	got := c.Requests("reviewer")
	if len(got) == 0 || !strings.Contains(got[0].Instructions, "FROM-PROJECT") || strings.Contains(got[0].Instructions, "FROM-AGENTS-DIR") {
		t.Errorf("reviewer: the project definition must shadow agents_dir's")
	}
}

// A resume that finds the agent still closing is told to retry with
// Task's own resume, not collab's resume_agent.
func TestClosingAgentRefusalNamesTask(t *testing.T) {
	msg := engineMessage(fmt.Errorf("continue: %w", &engine.AgentClosingError{ID: "agent-1"}))
	if msg != `agent agent-1 is shutting down; call Task with resume: "agent-1" again in a moment` {
		t.Errorf("closing refusal = %q", msg)
	}
}
