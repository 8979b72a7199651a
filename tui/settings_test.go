package tui

import (
	"testing"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// The TUI's settings go through the session core (issue 33): /model's
// effort and /approvals' mode are refused in the core's words — the words
// ACP's set_mode and the app-server's turn/start use — and nothing is
// sent; valid ones reach the engine as the core's ops, and a message is
// the core's user turn.
func TestSettingsAreTheSessionCoresCheck(t *testing.T) {
	m, fb, _ := newModelsModel(t, nil)
	sent := func(typ protocol.OpType) []protocol.Op {
		var out []protocol.Op
		for _, op := range fb.Ops() {
			if op.Type == typ {
				out = append(out, op)
			}
		}
		return out
	}

	m = typeText(m, "/model gpt-test max")
	m = pressDrive(m, "enter")
	if want := app.CheckSettingsChange(protocol.TurnOverrides{Model: "gpt-test", ReasoningEffort: "max"}).Error(); m.flash != want {
		t.Fatalf("flash %q, want the core's %q", m.flash, want)
	}
	m = typeText(m, "/approvals sometimes")
	m = pressDrive(m, "enter")
	if want := app.CheckSettingsChange(protocol.TurnOverrides{ApprovalPolicy: "sometimes"}).Error(); m.flash != want {
		t.Fatalf("flash %q, want the core's %q", m.flash, want)
	}
	if ops := fb.Ops(); len(ops) != 0 || m.info.ApprovalPolicy == "sometimes" {
		t.Fatalf("refused settings were sent: %+v (policy shown %q)", ops, m.info.ApprovalPolicy)
	}

	m = typeText(m, "/model gpt-test high")
	m = pressDrive(m, "enter")
	if ops := sent(protocol.OpSetModel); len(ops) != 1 || ops[0].ThreadID != rootID || ops[0].Model != "gpt-test" || ops[0].ReasoningEffort != "high" {
		t.Fatalf("set model: %+v", ops)
	}
	m = typeText(m, "/approvals never")
	m = pressDrive(m, "enter")
	if ops := sent(protocol.OpSetApprovalPolicy); len(ops) != 1 || ops[0].ApprovalPolicy != protocol.ApprovalNever || m.info.ApprovalPolicy != protocol.ApprovalNever {
		t.Fatalf("set approval policy: %+v (shown %q)", ops, m.info.ApprovalPolicy)
	}
	m = typeText(m, "hello")
	_ = pressDrive(m, "enter")
	if ops := sent(protocol.OpUserTurn); len(ops) != 1 || ops[0].ThreadID != rootID || ops[0].Text != "hello" || ops[0].Overrides != nil {
		t.Fatalf("user turn: %+v", ops)
	}
}
