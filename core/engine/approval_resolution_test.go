package engine

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A request whose turn is interrupted before anyone answered resolves as
// cancelled; the user's own "no, and stop" resolves as answered. Both
// reach the tool as an abort, but front ends must not call the first a
// denial.
func TestApprovalCancelledIsNotDenied(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("x-"+tn.prompt, "exec_command", map[string]any{"cmd": "touch " + tn.prompt})), nil
			}
			return text("should not continue"), nil
		},
	}, func(o *Options) { o.ApprovalPolicy = protocol.ApprovalUntrusted })
	asked := func(cmd string) protocol.ApprovalRequest {
		t.Helper()
		return *env.waitFor("approval for "+cmd, func(ev protocol.Event) bool {
			return ev.Type == protocol.EventApprovalRequested && ev.Approval.Command == cmd
		}).Approval
	}
	resolved := func(req protocol.ApprovalRequest) protocol.Event {
		t.Helper()
		return env.waitFor("resolution of "+req.Command, func(ev protocol.Event) bool {
			return ev.Type == protocol.EventApprovalResolved && ev.Approval.ID == req.ID
		})
	}

	env.send("interrupted")
	req := asked("touch interrupted")
	if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	if ev := resolved(req); ev.Decision != protocol.DecisionAbort || ev.Resolution != protocol.ResolvedCancelled {
		t.Fatalf("interrupted while waiting: decision %q resolution %q, want abort, cancelled", ev.Decision, ev.Resolution)
	}
	if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("root %+v", st)
	}

	env.send("stopped")
	req = asked("touch stopped")
	if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: req.ID, Decision: protocol.DecisionAbort}); err != nil {
		t.Fatal(err)
	}
	if ev := resolved(req); ev.Decision != protocol.DecisionAbort || ev.Resolution != protocol.ResolvedAnswered {
		t.Fatalf("the user's abort: decision %q resolution %q, want abort, answered", ev.Decision, ev.Resolution)
	}
	if st := env.rootFinal(2); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("root %+v", st)
	}
}
