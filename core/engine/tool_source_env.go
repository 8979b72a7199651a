package engine

import (
	"context"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// sourceEnv is the Env a run-time tool source (MCP servers) sees when this
// thread is about to call the model: it may ask approvals (a project's
// .mcp.json server) and publish warnings (a server that failed to start)
// through the thread, like a tool call would.
func (t *Thread) sourceEnv(turnID string) *tools.Env {
	e := t.e
	t.mu.Lock()
	env := &tools.Env{
		ThreadID: t.id, TurnID: turnID, Cwd: t.cwd,
		Sandbox: t.sandbox, ApprovalPolicy: e.ApprovalPolicy(),
	}
	t.mu.Unlock()
	env.Approve = func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		return e.askApproval(ctx, t, t, req)
	}
	env.Emit = func(ev protocol.Event) {
		ev.ThreadID = t.id
		ev.TurnID = turnID
		t.publish(ev)
	}
	return env
}
