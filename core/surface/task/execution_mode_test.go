package task

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

// escalateScript: the root starts agent typ, which asks to run a command
// outside the sandbox and hands back what the call returned.
func escalateScript(typ string) *surfacetest.Scripted {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", fmt.Sprintf(`{"subagent_type":%q,"prompt":"run it","description":"run"}`, typ))
		case typ:
			if out, ok := outputs(req)["x"]; ok {
				return call("d", "complete_task", fmt.Sprintf(`{"result":%q}`, out))
			}
			return call("x", "exec_command", `{"cmd":"echo hi","sandbox_permissions":"require_escalated","justification":"test"}`)
		}
		return model.Response{}
	}
	return c
}

// Seed 004 §3.4.1: the lightweight executor (executionMode's default)
// always suppresses permission prompts — even with approvalMode's default
// route_to_parent, the escalation is refused without asking anyone.
func TestLightweightAgentNeverAsks(t *testing.T) {
	c := escalateScript("light")
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"light.yaml": "agentType: light\nwhenToUse: runs things\n"}), trust: true, interactive: true})
	if err := e.SubmitText(root, "go"); err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second); err != nil || timedOut {
		t.Fatalf("root never finished (an approval waiting for the user?): %v %v; pending %v", timedOut, err, e.PendingApprovals())
	}
	if res, _ := toolOutput(t, c, "t1")["result"].(string); !strings.Contains(res, "runs non-interactively") {
		t.Errorf("escalation of a lightweight agent = %q", res)
	}
}

// executionMode full_codex routes the agent's approvals to the parent's
// user (approvalMode route_to_parent, the default): the escalation waits
// for an answer, and the answer reaches the agent.
func TestFullCodexAgentAsksThroughTheParent(t *testing.T) {
	c := escalateScript("full")
	yaml := "agentType: full\nwhenToUse: runs things\nexecutionMode: full_codex\n"
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"full.yaml": yaml}), trust: true, interactive: true})
	events, cancel := e.Subscribe()
	defer cancel()
	if err := e.SubmitText(root, "go"); err != nil {
		t.Fatal(err)
	}
	var req *protocol.ApprovalRequest
	deadline := time.After(30 * time.Second)
	for req == nil {
		select {
		case ev := <-events:
			if ev.Type == protocol.EventApprovalRequested && ev.Approval != nil {
				req = ev.Approval
			}
		case <-deadline:
			t.Fatal("no approval request from the full_codex agent")
		}
	}
	if pending := e.PendingApprovals(); req.ThreadID == root || len(pending) != 1 || pending[0].ID != req.ID {
		t.Errorf("approval from %s (root %s) pending %v: want the child's request waiting for the user", req.ThreadID, root, pending)
	}
	if err := e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: req.ID, Decision: protocol.DecisionDenied}); err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second); err != nil || timedOut {
		t.Fatalf("root did not finish: %v %v", timedOut, err)
	}
	if res, _ := toolOutput(t, c, "t1")["result"].(string); strings.Contains(res, "runs non-interactively") || res == "" {
		t.Errorf("denied escalation of a full_codex agent = %q", res)
	}
}

// disabledFeatures: ShellTool takes exec_command away from an agent that
// would otherwise have it (trust_custom_agents); the seed's own examples
// name tools grove does not have and change nothing.
func TestDisabledFeaturesReachTheAgentsTools(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			o := outputs(req)
			switch {
			case o["t1"] == "":
				return call("t1", "Task", `{"subagent_type":"noshell","prompt":"x","description":"x"}`)
			case o["t2"] == "":
				return call("t2", "Task", `{"subagent_type":"seedexample","prompt":"x","description":"x"}`)
			}
			return model.Response{Text: "ok"}
		}
		if _, ok := outputs(req)["x"]; !ok && role == "noshell" {
			return call("x", "exec_command", `{"cmd":"echo hi"}`)
		}
		return call("d", "complete_task", `{"result":"done"}`)
	}
	e, root := start(t, c, setup{trust: true, cwd: project(t, map[string]string{
		"noshell.yaml":     "agentType: noshell\nwhenToUse: no shell\ndisabledFeatures: [ShellTool]\n",
		"seedexample.yaml": "agentType: seedexample\nwhenToUse: the seed's example\ndisabledFeatures: [\"WebSearchRequest\", \"ViewImageTool\"]\n",
	})})
	runRoot(t, e, root, "go")
	noshell := c.Requests("noshell")
	if len(noshell) < 2 || slices.Contains(toolNames(noshell[0]), "exec_command") {
		t.Fatalf("noshell's tools: %v", toolNames(noshell[0]))
	}
	if out := outputs(noshell[1])["x"]; !strings.Contains(out, "exec_command") {
		t.Errorf("exec_command call of a ShellTool-disabled agent = %q", out)
	}
	if ex := c.Requests("seedexample"); len(ex) == 0 || !slices.Contains(toolNames(ex[0]), "exec_command") {
		t.Errorf("seedexample lost tools to features grove does not have")
	}
}

// Issue 31 (outside tries): the app-server and ACP sent their clients an
// approval request for agents that never ask — a question already
// decided, whose answer nobody read. An agent that never asks (the
// lightweight executor, approvalMode suppress) publishes its decision
// only: no approval_requested event reaches any front end.
func TestDecidedApprovalIsNeverRequested(t *testing.T) {
	for _, tc := range []struct{ typ, yaml string }{
		{"light", "agentType: light\nwhenToUse: runs things\n"},
		{"quiet", "agentType: quiet\nwhenToUse: runs things\nexecutionMode: full_codex\napprovalMode: suppress\n"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			c := escalateScript(tc.typ)
			e, root := start(t, c, setup{cwd: project(t, map[string]string{tc.typ + ".yaml": tc.yaml}), trust: true, interactive: true})
			events, cancel := e.Subscribe()
			defer cancel()
			if err := e.SubmitText(root, "go"); err != nil {
				t.Fatal(err)
			}
			if _, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second); err != nil || timedOut {
				t.Fatalf("root never finished: %v %v; pending %v", timedOut, err, e.PendingApprovals())
			}
			requested, resolved := 0, 0
			for drained := false; !drained; {
				select {
				case ev := <-events:
					switch ev.Type {
					case protocol.EventApprovalRequested:
						requested++
					case protocol.EventApprovalResolved:
						resolved++
					}
				default:
					drained = true
				}
			}
			if requested != 0 || resolved != 1 {
				t.Errorf("approval_requested %d, approval_resolved %d: want 0 and 1", requested, resolved)
			}
		})
	}
}
