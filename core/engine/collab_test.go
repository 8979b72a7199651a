package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

func nowFunc() func() time.Time { return time.Now }

func statusOf(t *testing.T, e *Engine, id protocol.ThreadID) protocol.AgentStatus {
	t.Helper()
	th := e.thread(id)
	if th == nil {
		t.Fatalf("no thread %s", id)
	}
	st, _ := th.Status()
	return st
}

func TestSpawnWaitCloseAndBackgroundEvents(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("sp", "spawn_agent", map[string]any{"agent_type": "worker", "message": "do it"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("sp"))}})), nil
			case 2:
				return calls(toolCall("cl", "close_agent", map[string]any{"id": agentIDFrom(tn.output("sp"))})), nil
			}
			return text("all done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			if !tn.hasTool("exec_command") || tn.hasTool("spawn_agent") {
				return text("wrong toolset"), nil
			}
			return text("worker result"), nil
		},
	}, nil)
	env.send("start")
	if st := env.rootFinal(1); st.Message != "all done" {
		t.Fatalf("root %+v", st)
	}
	child := spawnedID(t, env.toolOutput("sp").Output)
	var w struct {
		Status   map[protocol.ThreadID]protocol.AgentStatus `json:"status"`
		TimedOut bool                                       `json:"timed_out"`
	}
	if err := json.Unmarshal([]byte(env.toolOutput("w").Output), &w); err != nil {
		t.Fatal(err)
	}
	if w.TimedOut || w.Status[child].Kind != protocol.StatusCompleted || w.Status[child].Message != "worker result" {
		t.Fatalf("wait result %+v", w)
	}
	if st := statusOf(t, env.e, child); st.Kind != protocol.StatusShutdown {
		t.Fatalf("closed child status %v", st)
	}
	// Observer: every transition as a background event on the parent, finals flagged.
	env.waitFor("shutdown background event", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventBackground && ev.Background.ChildID == child && ev.Background.Status.Kind == protocol.StatusShutdown
	})
	bgs := env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventBackground && ev.Background.ChildID == child
	})
	var kinds []string
	for _, ev := range bgs {
		if ev.ThreadID != env.root {
			t.Fatalf("background event on %s, want parent %s", ev.ThreadID, env.root)
		}
		kinds = append(kinds, string(ev.Background.Status.Kind))
		if ev.Background.IsFinal != ev.Background.Status.IsFinal() {
			t.Fatalf("is_final wrong on %+v", ev.Background)
		}
		if ev.Background.Status.Kind == protocol.StatusCompleted {
			prefix := "agent worker (" + string(child) + ") [sp] completed in "
			if !strings.HasPrefix(ev.Background.Message, prefix) || !strings.HasSuffix(ev.Background.Message, ": worker result") {
				t.Fatalf("completion text %q", ev.Background.Message)
			}
		}
	}
	if got := strings.Join(kinds, ","); got != "pending_init,running,completed,shutdown" {
		t.Fatalf("observer saw %s", got)
	}
	// The child's rollout was flushed with its shutdown.
	st, _, ok, err := rollout.LastStatusChange(env.e.thread(child).info().RolloutPath)
	if err != nil || !ok || st.Kind != protocol.StatusShutdown {
		t.Fatalf("rollout last status %v %v %v", st, ok, err)
	}
}

func TestCloseCascadesToDescendants(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("sp", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "delegate"})), nil
			case 1:
				return calls(toolCall("la", "list_active_agents", map[string]any{"scope": "descendants"})), nil
			}
			return text("root idle"), nil
		},
		"orchestrator": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("gc", "spawn_agent", map[string]any{"agent_type": "worker", "message": "grandchild work"})), nil
			}
			return block(ctx, tn)
		},
		"worker": block,
	}, nil)
	env.send("go")
	env.rootFinal(1)
	mid := spawnedID(t, env.toolOutput("sp").Output)
	leaf := spawnedID(t, env.toolOutput("gc").Output)
	env.waitFor("grandchild running", func(ev protocol.Event) bool {
		return ev.ThreadID == leaf && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusRunning
	})
	if err := env.e.Submit(protocol.Op{Type: protocol.OpClose, ThreadID: mid}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []protocol.ThreadID{mid, leaf} {
		if st := statusOf(t, env.e, id); st.Kind != protocol.StatusShutdown {
			t.Fatalf("%s status %v after cascade", id, st)
		}
	}
	// Children are closed before their parents.
	env.waitFor("mid closed", func(ev protocol.Event) bool { return ev.Type == protocol.EventThreadClosed && ev.ThreadID == mid })
	closed := env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventThreadClosed })
	if len(closed) != 2 || closed[0].ThreadID != leaf || closed[1].ThreadID != mid {
		t.Fatalf("close order %+v", closed)
	}
}

func TestSubAgentCannotCloseSibling(t *testing.T) {
	siblingID := make(chan string, 1)
	env := newEnv(t, script{
		"root": func(ctx context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("a", "spawn_agent", map[string]any{"agent_type": "worker", "message": "idle"})), nil
			case 1:
				siblingID <- agentIDFrom(tn.output("a"))
				return calls(toolCall("b", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "close your sibling"})), nil
			case 2:
				return calls(toolCall("wb", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("b"))}})), nil
			}
			return text("ok"), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("idle worker"), nil },
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("x", "close_agent", map[string]any{"target": <-siblingID})), nil
			case 1:
				return calls(toolCall("self", "close_agent", map[string]any{"id": "SELF"})), nil
			}
			return text(tn.output("x")), nil
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	out := env.toolOutput("x")
	if !out.IsError || !strings.Contains(out.Output, "close_agent refused") {
		t.Fatalf("sibling close not refused: %+v", out)
	}
	sib := spawnedID(t, env.toolOutput("a").Output)
	if st := statusOf(t, env.e, sib); st.Kind == protocol.StatusShutdown {
		t.Fatal("sibling was closed")
	}
}

func TestSubAgentClosesItself(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("a", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "close yourself"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("a"))}})), nil
			}
			return text(tn.output("w")), nil
		},
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				me := strings.TrimSuffix(strings.SplitAfter(tn.req.Instructions, "you are sub-agent ")[1][:36], " ")
				return calls(toolCall("self", "close_agent", map[string]any{"id": me})), nil
			}
			return text("should not get here"), nil
		},
	}, nil)
	env.send("go")
	st := env.rootFinal(1)
	if !strings.Contains(st.Message, `"shutdown"`) {
		t.Fatalf("wait should see shutdown, got %q", st.Message)
	}
	if out := env.toolOutput("self"); out.IsError {
		t.Fatalf("self close refused: %s", out.Output)
	}
}

func TestWorkdirApprovalRoutedToRootWithChain(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("o", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "spawn a worker in sub"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("o"))}})), nil
			}
			return text("done"), nil
		},
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("same", "spawn_agent", map[string]any{"agent_type": "worker", "message": "here", "working_directory": "."}),
					toolCall("other", "spawn_agent", map[string]any{"agent_type": "worker", "agent_name": "careful", "message": "there", "working_directory": "sub"}),
				), nil
			case 1:
				return calls(toolCall("denied", "spawn_agent", map[string]any{"agent_type": "worker", "message": "again", "working_directory": "../"})), nil
			}
			return text("orchestrated"), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("worked"), nil },
	}, nil)
	env.send("go")
	ev := env.waitFor("workdir approval", func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
	req := ev.Approval
	if req.Kind != protocol.ApprovalWorkingDir || req.RouteThreadID != env.root || req.ThreadID == env.root {
		t.Fatalf("approval routing %+v", req)
	}
	if got := strings.Join(req.Chain, " → "); got != "root → orchestrator → worker/careful (new)" {
		t.Fatalf("chain %q", got)
	}
	if req.Dir != filepath.Join(env.cwd, "sub") {
		t.Fatalf("dir %q", req.Dir)
	}
	if !strings.Contains(req.Reason, "wants to start a worker/careful agent in ") {
		t.Fatalf("reason %q", req.Reason)
	}
	// Only one approval: the matching working directory needed none.
	if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: req.ID, Decision: protocol.DecisionApproved}); err != nil {
		t.Fatal(err)
	}
	ev2 := env.waitFor("second approval", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventApprovalRequested && ev.Approval.ID != req.ID
	})
	if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev2.Approval.ID, Decision: protocol.DecisionDenied}); err != nil {
		t.Fatal(err)
	}
	env.rootFinal(1)
	if out := env.toolOutput("same"); out.IsError {
		t.Fatalf("same dir spawn failed: %s", out.Output)
	}
	other := env.toolOutput("other")
	if other.IsError {
		t.Fatalf("approved spawn failed: %s", other.Output)
	}
	child := env.e.thread(spawnedID(t, other.Output))
	if child.info().Cwd != filepath.Join(env.cwd, "sub") {
		t.Fatalf("child cwd %s", child.info().Cwd)
	}
	if d := env.toolOutput("denied"); !d.IsError || !strings.HasPrefix(d.Output, "spawn_agent rejected: the user denied working_directory ") {
		t.Fatalf("denied spawn: %+v", d)
	}
	if n := len(env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })); n != 2 {
		t.Fatalf("%d approvals requested, want 2", n)
	}
}

func TestWorkdirApprovalFallsBackToCallerSession(t *testing.T) {
	env := newEnv(t, script{"root": func(context.Context, turn) (model.Response, error) { return text("x"), nil }}, nil)
	root := env.e.thread(env.root)
	// A caller whose root session is gone routes to itself.
	root.mu.Lock()
	root.life.closed = true
	root.mu.Unlock()
	defer func() { root.mu.Lock(); root.life.closed = false; root.mu.Unlock() }()
	go func() {
		ev := env.waitFor("approval", func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
		_ = env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: protocol.DecisionAbort})
	}()
	caller := &Thread{e: env.e, threadIdentity: threadIdentity{id: "caller-1", parentID: env.root}, cwd: env.cwd, status: newThreadStatus(protocol.PendingInit(), time.Now())}
	err := env.e.approveWorkdir(context.Background(), caller, filepath.Join(env.cwd, "sub"), "worker", "")
	if err == nil || !strings.Contains(err.Error(), "aborted") {
		t.Fatalf("abort should reject the spawn: %v", err)
	}
	ev := env.waitFor("approval", func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
	if ev.Approval.RouteThreadID != "caller-1" {
		t.Fatalf("fallback route %s", ev.Approval.RouteThreadID)
	}
}

func TestHeadlessWorkdirApprovalPolicy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mut     func(*Options)
		wantErr string
		dir     string
	}{
		{"denied by default", func(o *Options) { o.Headless = true }, "--approve-workdirs", "sub"},
		{"approve flag", func(o *Options) { o.Headless, o.ApproveWorkdirs = true, true }, "", "sub"},
		{"policy never", func(o *Options) { o.Headless, o.ApprovalPolicy = true, protocol.ApprovalNever }, "", "sub"},
		// Issue 31 item 9: under never + workspace-write a directory
		// outside the writable roots was approved and the child wrote
		// there; inside them it still is.
		{"policy never, workspace-write, inside the roots", func(o *Options) {
			o.Headless, o.ApprovalPolicy, o.Sandbox = true, protocol.ApprovalNever, protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true}
		}, "", "sub"},
		{"policy never, workspace-write, outside the roots", func(o *Options) {
			o.Headless, o.ApprovalPolicy, o.Sandbox = true, protocol.ApprovalNever, protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true}
		}, "outside this agent's writable roots", "../home"},
		{"policy never, full access, outside", func(o *Options) { o.Headless, o.ApprovalPolicy = true, protocol.ApprovalNever }, "", "../home"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, script{
				"root": func(_ context.Context, tn turn) (model.Response, error) {
					if tn.rounds == 0 {
						return calls(toolCall("s", "spawn_agent", map[string]any{"message": "x", "working_directory": tc.dir})), nil
					}
					return text("done"), nil
				},
				"default": func(context.Context, turn) (model.Response, error) { return text("child"), nil },
			}, tc.mut)
			// The temp dir (a writable root) inside the project, so that
			// ../home is outside every root.
			t.Setenv("TMPDIR", filepath.Join(env.cwd, "sub"))
			env.send("go")
			env.rootFinal(1)
			out := env.toolOutput("s")
			if tc.wantErr == "" && out.IsError {
				t.Fatalf("spawn refused: %s", out.Output)
			}
			if tc.wantErr != "" && (!out.IsError || !strings.Contains(out.Output, tc.wantErr)) {
				t.Fatalf("want error with %q, got %+v", tc.wantErr, out)
			}
		})
	}
}

func TestWaitReturnsFirstFinalAndTimesOut(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("fast", "spawn_agent", map[string]any{"agent_type": "worker", "message": "fast"}),
					toolCall("slow", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "slow"}),
				), nil
			case 1:
				return calls(toolCall("w1", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("fast")), agentIDFrom(tn.output("slow"))}, "timeout_ms": 600000})), nil
			case 2:
				return calls(toolCall("w2", "wait", map[string]any{"targets": []string{agentIDFrom(tn.output("slow"))}, "timeout_ms": 1})), nil
			case 3:
				return calls(toolCall("w3", "wait", map[string]any{"ids": []string{"no-such-agent"}})), nil
			}
			return text("done"), nil
		},
		"worker":   func(context.Context, turn) (model.Response, error) { return text("fast done"), nil },
		"explorer": block,
	}, nil)
	env.send("go")
	env.rootFinal(1)
	fast := spawnedID(t, env.toolOutput("fast").Output)
	var w1 struct {
		Status   map[protocol.ThreadID]protocol.AgentStatus `json:"status"`
		TimedOut bool                                       `json:"timed_out"`
	}
	_ = json.Unmarshal([]byte(env.toolOutput("w1").Output), &w1)
	if w1.TimedOut || len(w1.Status) != 1 || w1.Status[fast].Kind != protocol.StatusCompleted {
		t.Fatalf("w1 %+v", w1)
	}
	if got := env.toolOutput("w2").Output; got != `{"status":{},"timed_out":true}` {
		t.Fatalf("w2 %s", got)
	}
	if got := env.toolOutput("w3").Output; got != `{"status":{"no-such-agent":"not_found"},"timed_out":false}` {
		t.Fatalf("w3 %s", got)
	}
}

func TestWaitClamp(t *testing.T) {
	e := &Engine{waitMin: WaitMinTimeout, waitMax: WaitMaxTimeout, waitDefault: WaitDefaultTimeout}
	ms := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		in   *int64
		want time.Duration
	}{
		{nil, 300 * time.Second}, {ms(1), 10 * time.Second}, {ms(10_000), 10 * time.Second},
		{ms(60_000), time.Minute}, {ms(1_800_000), 30 * time.Minute}, {ms(99_999_999), 30 * time.Minute}, {ms(-5), 10 * time.Second},
	} {
		if got := e.clampWait(tc.in); got != tc.want {
			t.Errorf("clamp(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestListActiveAgentsScopesTreeAndClosed(t *testing.T) {
	release := make(chan struct{})
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("o", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "spawn one", "thread_note": "  lead   the\n work "}),
					toolCall("w", "spawn_agent", map[string]any{"agent_type": "worker", "message": "finish"}),
				), nil
			case 1:
				return calls(toolCall("wo", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("w"))}})), nil
			case 2:
				return calls(toolCall("close", "close_agent", map[string]any{"id": agentIDFrom(tn.output("w"))})), nil
			case 3:
				<-release
				return calls(
					toolCall("children", "list_active_agents", map[string]any{}),
					toolCall("desc", "list_active_agents", map[string]any{"scope": "descendants", "include_tree": true}),
					toolCall("closed", "list_active_agents", map[string]any{"scope": "all", "include_closed": true}),
				), nil
			}
			return text("listed"), nil
		},
		"orchestrator": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("gc", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "dig"})), nil
			}
			return text("orchestrator done"), nil
		},
		"explorer": func(context.Context, turn) (model.Response, error) { return text("dug"), nil },
		"worker":   func(context.Context, turn) (model.Response, error) { return text("finished"), nil },
	}, nil)
	env.send("go")
	gc := env.toolOutput("gc")
	grandchild := spawnedID(t, gc.Output)
	env.waitFor("grandchild done", func(ev protocol.Event) bool {
		return ev.ThreadID == grandchild && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusCompleted
	})
	close(release)
	env.rootFinal(1)
	type row struct {
		ThreadID          protocol.ThreadID    `json:"thread_id"`
		ThreadName        *string              `json:"thread_name"`
		ThreadNote        *string              `json:"thread_note"`
		AgentType         *string              `json:"agent_type"`
		Status            protocol.AgentStatus `json:"status"`
		StatusDurationSec *float64             `json:"status_duration_sec"`
		ParentThreadID    *protocol.ThreadID   `json:"parent_thread_id"`
		Depth             *int                 `json:"depth"`
		Model             string               `json:"model"`
		UpdatedAt         string               `json:"updated_at"`
	}
	parse := func(id string) []row {
		var r struct{ Agents []row }
		if err := json.Unmarshal([]byte(env.toolOutput(id).Output), &r); err != nil {
			t.Fatal(err)
		}
		return r.Agents
	}
	orch := spawnedID(t, env.toolOutput("o").Output)
	worker := spawnedID(t, env.toolOutput("w").Output)
	children := parse("children")
	if len(children) != 1 || children[0].ThreadID != orch {
		t.Fatalf("children (closed worker hidden): %+v", children)
	}
	if children[0].ParentThreadID != nil || children[0].Depth != nil {
		t.Fatal("tree fields without include_tree")
	}
	if n := children[0].ThreadNote; n == nil || *n != "lead the work" {
		t.Fatalf("note %v", n)
	}
	// thread_name names the agent by its role when nothing else names it.
	if n := children[0].ThreadName; n == nil || *n != "orchestrator" {
		t.Fatalf("thread_name %v, want the role", n)
	}
	if children[0].StatusDurationSec == nil || *children[0].StatusDurationSec < 0 || children[0].UpdatedAt == "" || children[0].Model != "test-model" {
		t.Fatalf("runtime fields %+v", children[0])
	}
	desc := parse("desc")
	if len(desc) != 2 {
		t.Fatalf("descendants %+v", desc)
	}
	for _, r := range desc {
		if r.ThreadID == grandchild && (r.ParentThreadID == nil || *r.ParentThreadID != orch || *r.Depth != 2) {
			t.Fatalf("grandchild tree fields %+v", r)
		}
		if r.Status.Kind == protocol.StatusShutdown {
			t.Fatal("shutdown listed without include_closed")
		}
	}
	all := parse("closed")
	found := false
	for _, r := range all {
		if r.ThreadID == worker {
			found = r.Status.Kind == protocol.StatusShutdown
		}
	}
	if len(all) != 3 || !found {
		t.Fatalf("include_closed %+v", all)
	}
}

func TestThreadNotesSetClearNormalize(t *testing.T) {
	long := strings.Repeat("é", 600)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "agent_name": "careful", "message": "x"})), nil
			case 1:
				id := agentIDFrom(tn.output("s"))
				return calls(toolCall("n1", "set_thread_note", map[string]any{"id": id, "note": "  two \t words  "})), nil
			case 2:
				id := agentIDFrom(tn.output("s"))
				return calls(toolCall("n2", "set_thread_note", map[string]any{"id": id, "note": long})), nil
			case 3:
				id := agentIDFrom(tn.output("s"))
				return calls(toolCall("n3", "set_thread_note", map[string]any{"target": id, "note": "   "})), nil
			}
			return text("ok"), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("w"), nil },
	}, nil)
	env.send("go")
	env.rootFinal(1)
	child := spawnedID(t, env.toolOutput("s").Output)
	// Default note from the template.
	first := env.waitFor("note event", func(ev protocol.Event) bool { return ev.Type == protocol.EventNoteUpdated && ev.ThreadID == child })
	if !strings.HasPrefix(*first.Note, "agent_type=worker; agent_name=careful; agent_description=") {
		t.Fatalf("default note %q", *first.Note)
	}
	var r1, r2, r3 struct {
		SubmissionID string  `json:"submission_id"`
		ThreadNote   *string `json:"thread_note"`
	}
	_ = json.Unmarshal([]byte(env.toolOutput("n1").Output), &r1)
	_ = json.Unmarshal([]byte(env.toolOutput("n2").Output), &r2)
	_ = json.Unmarshal([]byte(env.toolOutput("n3").Output), &r3)
	if r1.SubmissionID == "" || r1.ThreadNote == nil || *r1.ThreadNote != "two words" {
		t.Fatalf("n1 %+v", r1)
	}
	if r2.ThreadNote == nil || len([]rune(*r2.ThreadNote)) != 500 {
		t.Fatalf("n2 not cut to 500 chars")
	}
	if r3.ThreadNote != nil {
		t.Fatalf("blank note should clear: %v", *r3.ThreadNote)
	}
	if env.e.thread(child).info().Note != "" {
		t.Fatal("note not cleared")
	}
	// Notes reach the session index.
	kids, err := rollout.Children(env.home, env.root)
	if err != nil || len(kids) != 1 || kids[0].Note != "" {
		t.Fatalf("index children %+v %v", kids, err)
	}
	if NormalizeNote("a\n\n b") != "a b" {
		t.Fatal("normalize")
	}
}

// A note on a closed agent is refused. collab's set_thread_note says to
// resume_agent; the engine's own refusal (thread/note/set, the TUI) names
// no tool those callers do not have.
func TestNoteOnAClosedAgentNamesNoForeignTool(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			id := agentIDFrom(tn.output("s"))
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"message": "x"})), nil
			case 1:
				return calls(toolCall("c", "close_agent", map[string]any{"id": id})), nil
			case 2:
				return calls(toolCall("n", "set_thread_note", map[string]any{"id": id, "note": "late"})), nil
			}
			return text("ok"), nil
		},
		"default": func(context.Context, turn) (model.Response, error) { return text("child done"), nil },
	}, nil)
	env.send("go")
	env.rootFinal(1)
	child := spawnedID(t, env.toolOutput("s").Output)
	if out := env.toolOutput("n"); !out.IsError || out.Output != fmt.Sprintf("set_thread_note: agent %s is closed; call resume_agent first", child) {
		t.Errorf("set_thread_note on a closed agent = %q", out.Output)
	}
	err := env.e.Submit(protocol.Op{Type: protocol.OpSetNote, ThreadID: child, Note: "late"})
	if err == nil || err.Error() != fmt.Sprintf("agent %s is closed", child) {
		t.Errorf("OpSetNote on a closed agent = %v", err)
	}
}
