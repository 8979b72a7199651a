package task

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

func TestInterruptingTheCallerAbortsASyncTask(t *testing.T) {
	started := make(chan struct{})
	b := newBlocking(1)
	b.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "after"}
			}
			close(started)
			return call("t1", "Task", `{"subagent_type":"Explore","prompt":"look forever","description":"look"}`)
		}
		return model.Response{Text: "unreached"}
	}
	e, root := start(t, b, setup{})
	if err := e.SubmitText(root, "go"); err != nil {
		t.Fatal(err)
	}
	<-started
	// Wait until the Explore agent is blocked in its model call, then interrupt the root.
	var child protocol.ThreadID
	testkit.Eventually(t, "the Explore agent to be running", func() bool {
		for _, ti := range e.Threads() {
			if ti.AgentType == "Explore" && ti.Status.Kind == protocol.StatusRunning {
				child = ti.ID
			}
		}
		return child != ""
	})
	if err := e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: root}); err != nil {
		t.Fatal(err)
	}
	st, timedOut, err := e.WaitFinal(context.Background(), child, 30*time.Second)
	if err != nil || timedOut || st.Kind != protocol.StatusInterrupted {
		t.Fatalf("child after the interrupt: %v %v %v", st, timedOut, err)
	}
	// Seed 004 §3.4.2 (clause 004-31): cancelled while its turn ran (the
	// model call), the result is `Subagent cancelled during turn`.
	if o := (&Surface{e: e, results: newResults()}).outcome(child); o.Status != StatusAborted || o.Result != AbortedInTurnText {
		t.Errorf("outcome = %+v, want aborted during its turn", o)
	}
}

func TestBrokenOutputSchemaRefusesTheTask(t *testing.T) {
	def := "agentType: broken\noutputConfig:\n  outputName: out\n  description: x\n  schema: {type: 12}\n"
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if _, ok := outputs(req)["t1"]; ok {
			return model.Response{Text: "ok"}
		}
		return call("t1", "Task", `{"subagent_type":"broken","prompt":"x","description":"x"}`)
	}
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"broken.yaml": def})})
	runRoot(t, e, root, "go")
	if out := rawOutput(c, "t1"); !strings.HasPrefix(out, "Task: ") || !strings.Contains(out, "complete_task") {
		t.Errorf("Task with a broken schema = %q", out)
	}
	for _, ti := range e.Threads() {
		if ti.AgentType == "broken" {
			t.Errorf("an agent was created despite the broken schema: %+v", ti)
		}
	}
}

func TestRoleSurfaceKeyOverridesTheSetting(t *testing.T) {
	role := "---\ndescription: delegates the Claude way\nsurface: task\n---\nYou delegate.\n"
	c := newScripted(nil)
	c.Reply = func(r string, req model.Request) model.Response {
		if r == "root" {
			if _, ok := outputs(req)["s1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("s1", "spawn_agent", `{"agent_type":"lead","message":"go"}`)
		}
		return model.Response{Text: "done"}
	}
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"lead.md": role}), surface: "collab"})
	runRoot(t, e, root, "go")
	var lead protocol.ThreadInfo
	for _, ti := range e.Threads() {
		if ti.AgentType == "lead" {
			lead = ti
		}
	}
	if lead.Surface != "task" {
		t.Fatalf("lead surface = %q, want task (root %q)", lead.Surface, rootSurface(e, root))
	}
	if _, _, err := e.WaitFinal(context.Background(), lead.ID, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	names := toolNames(c.Requests("lead")[0])
	if !contains(names, "Task") || contains(names, "spawn_agent") {
		t.Errorf("lead tools = %v", names)
	}
}

func rootSurface(e interface {
	Info(protocol.ThreadID) (protocol.ThreadInfo, bool)
}, id protocol.ThreadID) string {
	ti, _ := e.Info(id)
	return ti.Surface
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestResumedSessionKeepsATaskAgentsTools(t *testing.T) {
	home, cwd := t.TempDir(), project(t, map[string]string{"fixer.yaml": customYAML})
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"fixer","prompt":"x","description":"fix"}`)
		}
		return model.Response{Text: "fixed"}
	}
	e1, root := start(t, c, setup{home: home, cwd: cwd})
	runRoot(t, e1, root, "go")
	child := protocol.ThreadID(agentID(rawOutput(c, "t1")))
	if err := e1.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	c2 := newScripted(func(string, model.Request) model.Response { return model.Response{Text: "again"} })
	e2, _ := start(t, c2, setup{home: home, cwd: cwd})
	resumed, err := e2.ResumeSession(string(root))
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := e2.Info(child); !ok || info.Surface != "" {
		t.Fatalf("resumed Task agent: %+v", info)
	}
	if err := e2.ContinueChild(resumed, child, "once more", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e2.WaitFinal(context.Background(), child, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	names := toolNames(c2.Requests("fixer")[0])
	for _, n := range []string{"exec_command", "apply_patch", "Task", "spawn_agent", "update_plan"} {
		if contains(names, n) {
			t.Errorf("reopened custom Task agent got %s: %v", n, names)
		}
	}
	if !contains(names, "read_file") {
		t.Errorf("reopened agent lost read_file: %v", names)
	}
}

func TestResumeRefusesARunningOrUnknownAgent(t *testing.T) {
	release := make(chan struct{})
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "Explore" {
			<-release
			return call("d", "complete_task", `{"result":"ok"}`)
		}
		outs := outputs(req)
		switch {
		case outs["t3"] != "":
			close(release)
			return model.Response{Text: "done"}
		case outs["t2"] != "":
			return call("t3", "Task", `{"subagent_type":"Explore","prompt":"x","description":"x","resume":"0000-not-an-agent"}`)
		case outs["t1"] != "":
			return call("t2", "Task", fmt.Sprintf(`{"subagent_type":"Explore","prompt":"more","description":"more","resume":%q}`, agentID(outs["t1"])))
		}
		return call("t1", "Task", `{"subagent_type":"Explore","prompt":"x","description":"x","run_in_background":true}`)
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "go")
	if out := rawOutput(c, "t2"); !strings.Contains(out, "still running") {
		t.Errorf("resume of a running agent = %q", out)
	}
	if out := rawOutput(c, "t3"); out != "Subagent execution failed: Transcript not found for agent: 0000-not-an-agent" {
		t.Errorf("resume of an unknown agent = %q", out)
	}
}

func TestSpawnAgentModelAliases(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role != "root" {
			return model.Response{Text: "child done"}
		}
		outs := outputs(req)
		switch {
		case outs["s2"] != "":
			return model.Response{Text: "ok"}
		case outs["s1"] != "":
			return call("s2", "spawn_agent", `{"agent_type":"worker","message":"x","model":"opus"}`)
		}
		return call("s1", "spawn_agent", `{"agent_type":"worker","message":"x","model":"sonnet"}`)
	}
	e, root := start(t, c, setup{surface: "collab", aliases: map[string]string{"sonnet": "claude-sonnet-x"}})
	runRoot(t, e, root, "go")
	if out := toolOutput(t, c, "s1"); out["model"] != "claude-sonnet-x" {
		t.Errorf("spawn with model sonnet = %v", out)
	}
	if out := rawOutput(c, "s2"); !strings.Contains(out, `model alias "opus" has no mapping`) {
		t.Errorf("unmapped alias = %q", out)
	}
}
