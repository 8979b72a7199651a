package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Dispatch is the one path of a call: the begin event with the handler's
// kind, PreToolUse before the approval (Claude Code's order), the
// PermissionRequest hook before anyone is asked, PostToolUse with the
// final result, the end event; a call PreToolUse refuses never runs and
// PostToolUse does not see it.
func TestDispatchRunsHooksAndEventsOnce(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	env.ApprovalPolicy = protocol.ApprovalUntrusted
	var log []string
	env.Emit = func(ev protocol.Event) {
		if ev.Tool != nil {
			log = append(log, string(ev.Type)+" "+string(ev.Tool.Kind))
		}
	}
	env.Approve = func(context.Context, protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		log = append(log, "ask")
		return protocol.DecisionApproved, nil
	}
	permit := false
	env.Hooks = &Hooks{
		Before: func(_ context.Context, _ *Env, c *Call) *Result {
			log = append(log, "before "+c.Name)
			if strings.Contains(string(c.Args), "refuse-me") {
				return &Result{Output: "refused by a hook", IsError: true}
			}
			return nil
		},
		After: func(_ context.Context, _ *Env, c Call, res *Result) {
			log = append(log, "after "+c.Name)
			res.Output += " +after"
		},
		Permission: func(context.Context, *Env, protocol.ApprovalRequest) (protocol.ReviewDecision, bool) {
			log = append(log, "permission")
			return protocol.DecisionApproved, permit
		},
	}
	call := func(cmd string) Result {
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		return r.Dispatch(context.Background(), env, Call{ID: "c1", Name: "exec_command", Args: args}, Route{})
	}
	res := call("touch x")
	want := "tool_call_begin exec|before exec_command|permission|ask|after exec_command|tool_call_end exec"
	if res.IsError || !strings.HasSuffix(res.Output, " +after") || strings.Join(log, "|") != want {
		t.Fatalf("log %q, want %q; result %+v", log, want, res)
	}
	log, permit = nil, true
	if res = call("touch y"); res.IsError || strings.Contains(strings.Join(log, "|"), "ask") {
		t.Fatalf("a PermissionRequest hook that allows answers for the user: log %q, result %+v", log, res)
	}
	log = nil
	res = call("echo refuse-me > y")
	if !res.IsError || res.Output != "refused by a hook" || strings.Join(log, "|") != "tool_call_begin exec|before exec_command|tool_call_end exec" {
		t.Fatalf("log %q, result %+v", log, res)
	}
}

// The route: a thread's own tools come first and no policy applies to
// them; a surface's refusal and the policy come next; an environment that
// could not be built fails the call unrun.
func TestDispatchRoute(t *testing.T) {
	r := coreRegistry(t)
	own := NewRegistry()
	if err := own.Register(updatePlan{}); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	none := func(string) bool { return false }
	plan := Call{ID: "p", Name: "update_plan", Args: json.RawMessage(`{"plan":[{"step":"a","status":"pending"}]}`)}
	if res := r.Dispatch(context.Background(), env, plan, Route{Own: own, Allow: none}); res.IsError {
		t.Fatalf("own tool refused: %+v", res)
	}
	if res := r.Dispatch(context.Background(), env, plan, Route{Allow: none}); !res.IsError || !strings.Contains(res.Output, "not available to this agent") {
		t.Fatalf("policy not applied: %+v", res)
	}
	refused := func(string) (string, bool) { return "the surface says no", true }
	if res := r.Dispatch(context.Background(), env, plan, Route{Refused: refused}); res.Output != "the surface says no" {
		t.Fatalf("surface refusal: %+v", res)
	}
	ran := false
	env.Hooks = &Hooks{Before: func(context.Context, *Env, *Call) *Result { ran = true; return nil }}
	res := r.Dispatch(context.Background(), env, plan, Route{EnvErr: errors.New("host h is down")})
	if res.Output != "update_plan: host h is down" || ran {
		t.Fatalf("env error: %+v (PreToolUse ran: %v)", res, ran)
	}
	if k := r.Kind("Bash", Route{}); k != protocol.ToolKindExec {
		t.Fatalf("a name the registry does not hold gets the kind it implies: %q", k)
	}
}

// decide is the one approval decision; a few of its corners.
func TestDecideOnce(t *testing.T) {
	ws := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
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
