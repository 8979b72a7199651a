package engine

import (
	"context"

	"github.com/grovecli/grove/protocol"
)

// askApproval asks the user on behalf of thread t, the PermissionRequest
// hooks first: for approvals asked outside a tool call's Env (a spawn's
// working directory, a project's host, an MCP server's start); a tool
// call's own approvals pass the hooks in the orchestrator (tools.Hooks).
func (e *Engine) askApproval(ctx context.Context, t, route *Thread, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
	if d, ok := t.permissionRequest(ctx, req); ok {
		return d, nil
	}
	return e.askApprovalUnhooked(ctx, t, route, req)
}

// askApprovalUnhooked asks the user on behalf of thread t (see
// requestApproval). An abort answer means "stop this work": it interrupts
// t's turn and every descendant's, so the sub-agents the asking turn
// started stop with it instead of running on unattended.
func (e *Engine) askApprovalUnhooked(ctx context.Context, t, route *Thread, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
	d, err := e.requestApproval(ctx, t, route, req)
	if err == nil && d == protocol.DecisionAbort {
		e.interruptTree(t)
	}
	return d, err
}
