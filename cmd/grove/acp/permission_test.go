package acp

import (
	"context"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/protocol"
)

// TestPermissionOptionsOfferSessionOnlyWhenRemembered: a call of an MCP
// tool whose approval_mode asks before every call (prompt, writes) gets no
// allow_always option, since the engine would approve that call only
// (Codex: mcp_tool_approval_prompt_options offers "Allow for this
// session" only with a session key, which prompt mode never has).
func TestPermissionOptionsOfferSessionOnlyWhenRemembered(t *testing.T) {
	kinds := func(ap protocol.ApprovalRequest) []sdk.PermissionOptionKind {
		var out []sdk.PermissionOptionKind
		for _, o := range permissionOptions(&ap) {
			out = append(out, o.Kind)
		}
		return out
	}
	mcp := func(noRemember bool) protocol.ApprovalRequest {
		return protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: "mcp__w__write_note",
			MCP: &protocol.MCPToolApproval{Server: "w", Tool: "write.note", NoRemember: noRemember}}
	}
	all := []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways, sdk.PermissionOptionKindRejectOnce}
	for name, tc := range map[string]struct {
		ap   protocol.ApprovalRequest
		want []sdk.PermissionOptionKind
	}{
		"exec":       {protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: "make"}, all},
		"mcp auto":   {mcp(false), all},
		"mcp prompt": {mcp(true), []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindRejectOnce}},
		// An escalation the engine will not remember (OnceOnly, set by
		// core/engine's rememberable) is approved once at most.
		"escalation": {protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: "curl x", Sandbox: protocol.SandboxDangerFullAccess, OnceOnly: true},
			[]sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindRejectOnce}},
	} {
		got := kinds(tc.ap)
		if len(got) != len(tc.want) {
			t.Errorf("%s: options %v, want %v", name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: options %v, want %v", name, got, tc.want)
				break
			}
		}
	}
}

// TestPermissionWithdrawnWhenTheTurnIsCancelled: a permission request the
// client has not answered when the turn is cancelled is withdrawn
// ($/cancel_request ends the client's handler), not left open as if a
// person could still answer it; the prompt ends cancelled and nothing ran.
func TestPermissionWithdrawnWhenTheTurnIsCancelled(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	c := f.connect(t)
	defer c.stop()
	ctx := context.Background()
	if _, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	ns, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.client.setAnswer(answerNever)
	done := make(chan sdk.PromptResponse, 1)
	go func() { done <- prompt(t, c, ns.SessionId, "write never") }()
	asked := <-c.client.waiting
	if err := c.Cancel(ctx, sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	if w := <-c.client.withdrawn; w.ToolCall.ToolCallId != asked.ToolCall.ToolCallId {
		t.Fatalf("withdrew %v, asked %v", w.ToolCall.ToolCallId, asked.ToolCall.ToolCallId)
	}
	if r := <-done; r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %s", r.StopReason)
	}
	if fileExists(filepath.Join(f.cwd, "never.txt")) {
		t.Fatal("the unanswered command ran")
	}
}
