package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// TestToolApprovalModes drives the real test server under each mode of
// Codex's default_tools_approval_mode / tools.<tool>.approval_mode, ported
// from the tests of Codex's mcp_permission_prompt_is_auto_approved
// (codex-rs/codex-mcp crate;
// auto_approval_honors_approved_tools_in_all_permission_modes: approve
// runs unasked under every policy, never included;
// auto_approval_honors_unrestricted_managed_profiles: never approves only
// with full access) and codex-rs/core/src/mcp_tool_call.rs's
// requires_mcp_tool_approval_for_mode (prompt asks for every tool, writes
// for a tool not annotated read-only) with request_mcp_tool_user_approval
// (a call that needs approval under never is refused).
func TestToolApprovalModes(t *testing.T) {
	// echo is annotated read-only; write.note is not.
	prompt := stdioServer("serve")
	prompt.DefaultToolsApprovalMode = config.MCPApprovalPrompt
	prompt.Tools = map[string]config.MCPToolConfig{"write.note": {ApprovalMode: config.MCPApprovalApprove}}
	writes := stdioServer("serve")
	writes.DefaultToolsApprovalMode = config.MCPApprovalWrites
	reg, _ := newRegistry(t, map[string]config.MCPServer{"p": prompt, "w": writes})
	const ws, full = protocol.SandboxWorkspaceWrite, protocol.SandboxDangerFullAccess
	for _, tc := range []struct {
		policy  protocol.ApprovalPolicy
		sandbox protocol.SandboxMode
		tool    string
		asks    bool
		refused string // the call did not run: its output holds this
	}{
		// prompt: every call asks, read-only ones too, under every policy
		// with someone to ask (grove's auto would not ask under on-failure).
		{protocol.ApprovalOnRequest, ws, "mcp__p__echo", true, ""},
		{protocol.ApprovalUntrusted, ws, "mcp__p__echo", true, ""},
		{protocol.ApprovalOnFailure, ws, "mcp__p__echo", true, ""},
		{protocol.ApprovalNever, ws, "mcp__p__echo", false, "approval_mode = prompt"},
		{protocol.ApprovalNever, full, "mcp__p__echo", false, ""},
		// approve (the tool's own mode over the server's prompt): never asks.
		{protocol.ApprovalOnRequest, ws, "mcp__p__write.note", false, ""},
		{protocol.ApprovalUntrusted, ws, "mcp__p__write.note", false, ""},
		{protocol.ApprovalNever, ws, "mcp__p__write.note", false, ""},
		// writes: read-only tools run unasked, others ask (on-failure too).
		{protocol.ApprovalOnRequest, ws, "mcp__w__echo", false, ""},
		{protocol.ApprovalNever, ws, "mcp__w__echo", false, ""},
		{protocol.ApprovalOnRequest, ws, "mcp__w__write.note", true, ""},
		{protocol.ApprovalOnFailure, ws, "mcp__w__write.note", true, ""},
		{protocol.ApprovalNever, ws, "mcp__w__write.note", false, "approval_mode = writes"},
		{protocol.ApprovalNever, full, "mcp__w__write.note", false, ""},
	} {
		rec := &recorder{decision: protocol.DecisionApproved}
		env := rec.env(tc.policy, tc.sandbox)
		reg.SpecsFor(context.Background(), env, nil)
		name := sanitizeName(tc.tool)
		res := reg.Run(context.Background(), env, name, rawArgs(t, map[string]string{"text": "x"}))
		what := string(tc.policy) + " " + string(tc.sandbox) + " " + tc.tool
		if asked := len(rec.asked) == 1; asked != tc.asks || len(rec.asked) > 1 {
			t.Errorf("%s: asked %d times, want asks=%v", what, len(rec.asked), tc.asks)
		}
		switch {
		case tc.refused != "":
			if !res.IsError || !strings.Contains(res.Output, tc.refused) || !strings.Contains(res.Output, "approval_policy is never") {
				t.Errorf("%s: want refused naming %q, got %+v", what, tc.refused, res)
			}
		case res.IsError || (res.Output != "Echo: x" && res.Output != "wrote x"):
			t.Errorf("%s: did not run: %+v", what, res)
		}
	}
}

// TestPromptModeAsksWithNoOneToAnswer: in grove exec nobody answers; a
// prompt tool is refused with words naming the key that lets it run.
func TestPromptModeAsksWithNoOneToAnswer(t *testing.T) {
	cfg := stdioServer("serve")
	cfg.Tools = map[string]config.MCPToolConfig{"echo": {ApprovalMode: config.MCPApprovalPrompt}}
	reg, _ := newRegistry(t, map[string]config.MCPServer{"t": cfg})
	env := (&recorder{}).env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	env.Approve = nil
	reg.SpecsFor(context.Background(), env, nil)
	res := reg.Run(context.Background(), env, "mcp__t__echo", rawArgs(t, map[string]string{"text": "x"}))
	if !res.IsError || !strings.Contains(res.Output, "no one can approve") {
		t.Fatalf("prompt tool without an asker = %+v", res)
	}
}

// TestServerToolsRunAloneUnlessParallel: supports_parallel_tool_calls
// decides tools.Alone for every tool of the server (Codex's
// McpServerConfig: "every tool from this server is advertised as safe for
// parallel tool calls").
func TestServerToolsRunAloneUnlessParallel(t *testing.T) {
	par := stdioServer("serve")
	par.SupportsParallelToolCalls = true
	reg, _ := newRegistry(t, map[string]config.MCPServer{"one": stdioServer("serve"), "par": par})
	env := (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	for name, want := range map[string]bool{"mcp__one__echo": true, "mcp__one__fail": true, "mcp__par__echo": false, "exec_command": false} {
		if got := reg.RunsAlone(name, tools.Route{}); got != want {
			t.Errorf("%s runs alone = %v, want %v", name, got, want)
		}
	}
}
