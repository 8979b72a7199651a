package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// The orchestrator: every tool call — built-in, collaboration, surface,
// MCP — goes through Registry.RunAllowed, which resolves the handler,
// applies the allow/deny policy, validates the arguments, and then (here)
// decides approval once, asks, runs, and offers the retry outside the
// sandbox. Handlers only do their work: a tool whose calls may need
// approval describes the call (Gated); it never decides.

// Gated is implemented by tools whose calls may need the user's approval.
// Gate describes the call without running it; a non-nil *Result refuses it
// as is (bad arguments the handler would refuse too).
type Gated interface {
	Gate(ctx context.Context, env *Env, args json.RawMessage) (Gate, *Result)
}

// GateKind says which approval rules apply to a call.
type GateKind int

const (
	// GateExec is a command run in the sandbox (exec_command).
	GateExec GateKind = iota + 1
	// GatePatch writes files (apply_patch).
	GatePatch
	// GateExternal runs outside grove's sandbox and may change things (an
	// MCP tool not annotated read-only, of a server not marked trusted).
	GateExternal
)

// Gate is what a gated call would do, as far as approval is concerned.
type Gate struct {
	Kind GateKind
	// Request is the approval request to ask with (kind, command or patch
	// and files, cwd, and the model's justification as Reason).
	Request protocol.ApprovalRequest
	// Escalate: the command asks to run outside the sandbox.
	Escalate bool
	// KnownSafe: the known-safe judge found the command read-only.
	KnownSafe bool
	// Outside says why paths of a patch are outside the writable roots,
	// and NeedApproval which resolved paths approving it approves.
	Outside      []string
	NeedApproval []string
	// Workdir is exec_command's working directory, pinned at the check.
	Workdir *sandbox.DirPin
	// Name is the tool as the user knows it, and Server its MCP server
	// (GateExternal: the messages name both).
	Name, Server, RawName string
	// ApprovalMode (GateExternal) is the MCP tool's approval mode when
	// the user set prompt or writes (Codex's default_tools_approval_mode
	// and tools.<tool>.approval_mode): the call asks under every policy
	// with someone to ask, and under never runs only in a
	// danger-full-access sandbox, as in Codex. "" is grove's rule (auto).
	ApprovalMode string
}

// orchestrate runs a resolved, allowed, validated call.
func orchestrate(ctx context.Context, env *Env, t Tool, args json.RawMessage) Result {
	g, gated := t.(Gated)
	if !gated {
		return t.Run(ctx, env, args)
	}
	gate, refused := g.Gate(ctx, env, args)
	if refused != nil {
		return *refused
	}
	plan := decide(env.ApprovalPolicy, env.Sandbox, gate)
	if plan.refuse != "" {
		return Errorf("%s", plan.refuse)
	}
	runEnv := *env
	runEnv.Workdir = gate.Workdir
	if plan.ask {
		if res, ok := askGate(ctx, env, gate, plan.request); !ok {
			return res
		}
		runEnv.Approved = true
		runEnv.ApprovedPaths = gate.NeedApproval
	}
	if plan.escalate {
		runEnv.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}
	}
	if err := ctx.Err(); err != nil && gate.Kind == GatePatch {
		return Result{Output: "apply_patch: interrupted; no files were changed", IsError: true, Abort: true}
	}
	res := t.Run(ctx, &runEnv, args)
	if gate.Kind != GateExec || !retryable(env.ApprovalPolicy) || runEnv.Sandbox.Mode == protocol.SandboxDangerFullAccess || res.IsError || !res.SandboxDenied {
		return res
	}
	// A sandbox denial under on-failure or untrusted: offer to run the
	// command again outside the sandbox.
	req := gate.Request
	req.Reason = "the command failed inside the sandbox (permission denied); run it again without the sandbox?"
	req.Sandbox = protocol.SandboxDangerFullAccess
	if r, ok := askGate(ctx, env, gate, req); !ok {
		r.Output = res.Output + "\n\n" + r.Output
		return r
	}
	runEnv.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}
	runEnv.Approved = true
	return t.Run(ctx, &runEnv, args)
}

// plan is the approval decision for one call.
type plan struct {
	refuse   string // refused without asking
	ask      bool
	request  protocol.ApprovalRequest
	escalate bool // run outside the sandbox once approved
}

// decide is the one approval decision: policy × sandbox × known-safe
// judge × escalation (the session cache answers inside env.Approve).
func decide(policy protocol.ApprovalPolicy, sb protocol.SandboxPolicy, g Gate) plan {
	req := g.Request
	switch g.Kind {
	case GateExec:
		switch policy {
		case protocol.ApprovalNever:
			if g.Escalate {
				return plan{refuse: fmt.Sprintf("exec_command: running outside the sandbox is not available (approval_policy = never); do the work within the %s sandbox", sb.Mode)}
			}
			return plan{}
		case protocol.ApprovalUntrusted:
			if !g.Escalate && g.KnownSafe {
				return plan{}
			}
			if req.Reason == "" {
				req.Reason = "approval_policy is untrusted: every command that is not a known read-only one needs approval"
			}
		default: // on-request, on-failure
			if !g.Escalate {
				return plan{}
			}
			if req.Reason == "" {
				req.Reason = "the model asks to run this outside the sandbox"
			}
		}
		if g.Escalate {
			req.Sandbox = protocol.SandboxDangerFullAccess
		}
		return plan{ask: true, request: req, escalate: g.Escalate}
	case GatePatch:
		untrusted := policy == protocol.ApprovalUntrusted
		if len(g.Outside) == 0 && !untrusted {
			return plan{}
		}
		why := "approval_policy is untrusted"
		if len(g.Outside) > 0 {
			why = strings.Join(g.Outside, "; ")
		}
		if policy == protocol.ApprovalNever {
			return plan{refuse: fmt.Sprintf("%s: refused: %s (approval_policy is never, so no one is asked); no files were changed", patchToolName(g), why)}
		}
		req.Reason, req.Outside = why, g.Outside
		return plan{ask: true, request: req}
	case GateExternal:
		return decideExternal(policy, sb, g)
	}
	return plan{}
}

// decideExternal decides an MCP tool call that needs approval by its mode.
func decideExternal(policy protocol.ApprovalPolicy, sb protocol.SandboxPolicy, g Gate) plan {
	if g.ApprovalMode == "" {
		switch policy {
		case protocol.ApprovalUntrusted, protocol.ApprovalOnRequest, "":
			return plan{ask: true, request: g.Request}
		}
		return plan{}
	}
	if policy != protocol.ApprovalNever {
		return plan{ask: true, request: g.Request}
	}
	// Codex (mcp_permission_prompt_is_auto_approved): never with full
	// access approves; never in a sandbox refuses what needs approval.
	if sb.Mode == protocol.SandboxDangerFullAccess {
		return plan{}
	}
	return plan{refuse: fmt.Sprintf("%s: this MCP tool needs approval (approval_mode = %s for it in [mcp_servers.%s]) but approval_policy is never; the call did not run", g.Name, g.ApprovalMode, g.Server)}
}

func retryable(p protocol.ApprovalPolicy) bool {
	return p == protocol.ApprovalOnFailure || p == protocol.ApprovalUntrusted
}

// askGate asks and returns (result, false) when the call must not run.
func askGate(ctx context.Context, env *Env, g Gate, req protocol.ApprovalRequest) (Result, bool) {
	m := gateMessages(g, env.ApprovalPolicy, req.Reason)
	if env.Approve == nil {
		return Errorf("%s", m.noAsker), false
	}
	req.CallID = env.CallID
	d, err := env.Approve(ctx, req)
	switch {
	case err != nil && ctx.Err() != nil:
		return Result{Output: m.interrupted(err), IsError: true, Abort: true}, false
	case err != nil:
		return Errorf("%s", m.failed(err)), false
	case d == protocol.DecisionApproved || d == protocol.DecisionApprovedForSession:
		return Result{}, true
	case d == protocol.DecisionAbort:
		return Result{Output: m.aborted, IsError: true, Abort: true}, false
	}
	return Errorf("%s", m.denied), false
}

// patchToolName names a file-writing call in its refusals: apply_patch,
// or the Claude tool (Write, Edit, MultiEdit) that made it.
func patchToolName(g Gate) string {
	if g.Name != "" {
		return g.Name
	}
	return "apply_patch"
}

// messages are a gate's words for the model when the call does not run.
type messages struct {
	noAsker, aborted, denied string
	interrupted, failed      func(error) string
}

func gateMessages(g Gate, policy protocol.ApprovalPolicy, why string) messages {
	switch g.Kind {
	case GatePatch:
		return messages{
			noAsker: fmt.Sprintf("%s: refused: %s, and no one can approve in this session; no files were changed", patchToolName(g), why),
			aborted: "patch rejected by user (the turn was aborted)",
			denied:  "patch rejected by user",
			interrupted: func(error) string {
				return "apply_patch: interrupted while waiting for approval; no files were changed"
			},
			failed: func(err error) string {
				return fmt.Sprintf("apply_patch: approval failed: %v; no files were changed", err)
			},
		}
	case GateExternal:
		return messages{
			noAsker:     fmt.Sprintf("%s: this MCP tool needs approval (approval_policy = %s) but no one can approve in this session", g.Name, policy),
			aborted:     g.Name + ": rejected by user (aborted the turn)",
			denied:      g.Name + ": rejected by user",
			interrupted: func(err error) string { return fmt.Sprintf("%s: approval was not given: %v", g.Name, err) },
			// Nobody can answer (grove exec): say what would let it run.
			failed: func(error) string {
				if g.ApprovalMode != "" {
					return fmt.Sprintf("%s: this MCP tool needs approval (approval_mode = %s), and no one can approve in this session; the user can set approval_mode = \"approve\" for it in [mcp_servers.%s]", g.Name, g.ApprovalMode, g.Server)
				}
				return fmt.Sprintf("%s: this MCP tool is not annotated read-only, so it needs approval under approval_policy = %s, and no one can approve in this session; the user can set default_tools_approval_mode = \"approve\" (or trusted = true) in [mcp_servers.%s] or run with -a never", g.Name, policy, g.Server)
			},
		}
	}
	failed := func(err error) string { return fmt.Sprintf("exec_command: approval was not given: %v", err) }
	return messages{
		noAsker:     fmt.Sprintf("exec_command: this command needs approval (approval_policy = %s) but no one can approve in this session; work within the sandbox or ask the user to run it", policy),
		aborted:     "command rejected by user (aborted the turn)",
		denied:      "command rejected by user",
		interrupted: failed, failed: failed,
	}
}

// AsksApproval reports whether the orchestrator would ask before running
// a call with this gate (tests of the tools that describe gates).
func AsksApproval(policy protocol.ApprovalPolicy, sb protocol.SandboxPolicy, g Gate) bool {
	return decide(policy, sb, g).ask
}
