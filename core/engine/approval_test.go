package engine

import (
	"context"
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
