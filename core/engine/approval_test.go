package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Approve-for-session is remembered; deny reaches the model; abort ends
// the turn as interrupted.
func TestApprovalDecisions(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch {
			case tn.prompt == "abort me":
				if tn.rounds == 0 {
					return calls(toolCall("x", "exec_command", map[string]any{"cmd": "touch aborted"})), nil
				}
				return text("should not continue"), nil
			case tn.rounds == 0:
				return calls(toolCall("a1", "exec_command", map[string]any{"cmd": "touch one"})), nil
			case tn.rounds == 1:
				return calls(toolCall("a2", "exec_command", map[string]any{"cmd": "touch one"})), nil
			case tn.rounds == 2:
				return calls(toolCall("d1", "exec_command", map[string]any{"cmd": "touch two"})), nil
			}
			return text("done"), nil
		},
	}, func(o *Options) { o.ApprovalPolicy = protocol.ApprovalUntrusted })
	answer := func(cmd string, d protocol.ReviewDecision) {
		ev := env.waitFor("approval for "+cmd, func(ev protocol.Event) bool {
			return ev.Type == protocol.EventApprovalRequested && ev.Approval.Command == cmd && len(env.all(func(r protocol.Event) bool {
				return r.Type == protocol.EventApprovalResolved && r.Approval.ID == ev.Approval.ID
			})) == 0
		})
		if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: d}); err != nil {
			t.Fatal(err)
		}
	}
	env.send("go")
	answer("touch one", protocol.DecisionApprovedForSession)
	answer("touch two", protocol.DecisionDenied)
	if st := env.rootFinal(1); st.Message != "done" {
		t.Fatalf("root %+v", st)
	}
	if n := len(env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventApprovalRequested && ev.Approval.Command == "touch one"
	})); n != 1 {
		t.Fatalf("approved-for-session command asked %d times", n)
	}
	if out := env.toolOutput("a2"); out.IsError || out.ExitCode == nil || *out.ExitCode != 0 {
		t.Fatalf("second run: %+v", out)
	}
	if out := env.toolOutput("d1"); !out.IsError || !strings.Contains(out.Output, "rejected by user") {
		t.Fatalf("denied: %+v", out)
	}
	env.send("abort me")
	answer("touch aborted", protocol.DecisionAbort)
	if st := env.rootFinal(2); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("abort should interrupt the turn: %+v", st)
	}
	if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: "nope", Decision: protocol.DecisionApproved}); err == nil {
		t.Fatal("answering an unknown approval should fail")
	}
}

// "Approve for session" covers one command in one sandbox and one
// directory: it must not approve re-running the command outside the
// sandbox, and an escalation asks every time, even when the user answered
// "for session" before.
func TestApprovalForSessionIsKeyedOnSandboxAndDir(t *testing.T) {
	run := func(id string, args map[string]any) (model.Response, error) {
		args["cmd"] = "touch one"
		return calls(toolCall(id, "exec_command", args)), nil
	}
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return run("sandboxed", map[string]any{})
			case 1:
				return run("escalated1", map[string]any{"sandbox_permissions": "require_escalated", "justification": "j"})
			case 2:
				return run("escalated2", map[string]any{"sandbox_permissions": "require_escalated", "justification": "j"})
			case 3:
				return run("elsewhere", map[string]any{"workdir": "sub"})
			case 4:
				return run("again", map[string]any{})
			}
			return text("done"), nil
		},
	}, func(o *Options) {
		o.ApprovalPolicy = protocol.ApprovalUntrusted
		o.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	})
	var asked []protocol.ApprovalRequest
	answer := func(d protocol.ReviewDecision) {
		t.Helper()
		ev := env.waitFor("an approval", func(ev protocol.Event) bool {
			return ev.Type == protocol.EventApprovalRequested && !slices.ContainsFunc(asked, func(r protocol.ApprovalRequest) bool { return r.ID == ev.Approval.ID })
		})
		asked = append(asked, *ev.Approval)
		if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: d}); err != nil {
			t.Fatal(err)
		}
	}
	env.send("go")
	answer(protocol.DecisionApprovedForSession) // sandboxed
	answer(protocol.DecisionApprovedForSession) // escalated: asked despite the sandboxed approval
	answer(protocol.DecisionApproved)           // escalated again: "for session" was not remembered
	answer(protocol.DecisionDenied)             // another directory
	if st := env.rootFinal(1); st.Message != "done" {
		t.Fatalf("root %+v", st)
	}
	requests := env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
	if len(requests) != 4 {
		t.Fatalf("%d approval requests, want 4", len(requests))
	}
	want := []protocol.SandboxMode{protocol.SandboxWorkspaceWrite, protocol.SandboxDangerFullAccess, protocol.SandboxDangerFullAccess, protocol.SandboxWorkspaceWrite}
	for i, req := range asked {
		if req.Sandbox != want[i] {
			t.Errorf("request %d sandbox = %q, want %q", i, req.Sandbox, want[i])
		}
	}
	// What the engine does is what it publishes: the escalation's "for
	// session" was not remembered, so it is offered nowhere and resolved
	// as a plain approve.
	for i, once := range []bool{false, true, true, false} {
		if asked[i].OnceOnly != once || asked[i].OffersSession() == once {
			t.Errorf("request %d OnceOnly = %v, want %v", i, asked[i].OnceOnly, once)
		}
	}
	resolved := map[string]protocol.ReviewDecision{}
	for _, ev := range env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalResolved }) {
		resolved[ev.Approval.ID] = ev.Decision
	}
	if d := resolved[asked[0].ID]; d != protocol.DecisionApprovedForSession {
		t.Errorf("sandboxed for-session published as %q", d)
	}
	if d := resolved[asked[1].ID]; d != protocol.DecisionApproved {
		t.Errorf("escalated for-session published as %q, want approved (not remembered)", d)
	}
	if !strings.HasSuffix(asked[3].Cwd, "sub") {
		t.Errorf("request 3 cwd = %q", asked[3].Cwd)
	}
	for _, id := range []string{"sandboxed", "escalated1", "escalated2", "again"} {
		if out := env.toolOutput(id); out.IsError || out.ExitCode == nil || *out.ExitCode != 0 {
			t.Errorf("%s: %+v", id, out)
		}
	}
	if out := env.toolOutput("elsewhere"); !out.IsError || !strings.Contains(out.Output, "rejected by user") {
		t.Errorf("elsewhere: %+v", out)
	}
}
