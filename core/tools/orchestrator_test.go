package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// The hooks see each call once, after the approval was decided, where it
// is about to run and where it ended; Before can refuse it.
func TestOrchestratorHooksAroundTheRun(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	env.ApprovalPolicy = protocol.ApprovalUntrusted
	var log []string
	env.Approve = func(context.Context, protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		log = append(log, "ask")
		return protocol.DecisionApproved, nil
	}
	env.Hooks = &Hooks{
		Before: func(_ context.Context, env *Env, name string, args json.RawMessage) *Result {
			log = append(log, "before "+name)
			if strings.Contains(string(args), "refuse-me") {
				return &Result{Output: "refused by a hook", IsError: true}
			}
			return nil
		},
		After: func(_ context.Context, _ *Env, name string, _ json.RawMessage, res *Result) {
			log = append(log, "after "+name+" "+res.Summary)
		},
	}
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "touch x"})
	if res.IsError || strings.Join(log, "|") != "ask|before exec_command|after exec_command "+res.Summary {
		t.Fatalf("log %q, result %+v", log, res)
	}
	log = nil
	res = run(t, r, env, "exec_command", map[string]any{"cmd": "echo refuse-me > y"})
	if !res.IsError || res.Output != "refused by a hook" || strings.Join(log, "|") != "ask|before exec_command" {
		t.Fatalf("log %q, result %+v", log, res)
	}
}

// decide is the one approval decision; a few of its corners.
func TestDecideOnce(t *testing.T) {
	ws := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	exec := func(escalate, safe bool) Gate { return Gate{Kind: GateExec, Escalate: escalate, KnownSafe: safe} }
	for _, tc := range []struct {
		name   string
		policy protocol.ApprovalPolicy
		g      Gate
		ask    bool
		refuse string
	}{
		{"never runs sandboxed", protocol.ApprovalNever, exec(false, false), false, ""},
		{"never refuses escalation", protocol.ApprovalNever, exec(true, false), false, "approval_policy = never"},
		{"untrusted runs known-safe", protocol.ApprovalUntrusted, exec(false, true), false, ""},
		{"untrusted asks otherwise", protocol.ApprovalUntrusted, exec(false, false), true, ""},
		{"on-request asks to escalate", protocol.ApprovalOnRequest, exec(true, false), true, ""},
		{"patch inside runs", protocol.ApprovalOnRequest, Gate{Kind: GatePatch}, false, ""},
		{"patch outside asks", protocol.ApprovalOnFailure, Gate{Kind: GatePatch, Outside: []string{"x is outside"}}, true, ""},
		{"patch outside under never", protocol.ApprovalNever, Gate{Kind: GatePatch, Outside: []string{"x is outside"}}, false, "approval_policy is never"},
		{"mcp on-failure runs", protocol.ApprovalOnFailure, Gate{Kind: GateExternal}, false, ""},
		{"mcp on-request asks", protocol.ApprovalOnRequest, Gate{Kind: GateExternal}, true, ""},
	} {
		p := decide(tc.policy, ws, tc.g)
		if p.ask != tc.ask || (tc.refuse == "") != (p.refuse == "") || !strings.Contains(p.refuse, tc.refuse) {
			t.Errorf("%s: plan %+v", tc.name, p)
		}
		if tc.g.Escalate && p.ask && (!p.escalate || p.request.Sandbox != protocol.SandboxDangerFullAccess) {
			t.Errorf("%s: an approved escalation must run outside the sandbox: %+v", tc.name, p)
		}
		if tc.g.Kind == GatePatch && p.ask && len(p.request.Outside) != len(tc.g.Outside) {
			t.Errorf("%s: the request must say what lies outside the writable roots (the TUI's red badge): %+v", tc.name, p.request)
		}
	}
}
