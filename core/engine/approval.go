package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// approvalBroker is the rendezvous between a blocked tool and whoever
// answers: the first decision wins; "approve for session" is remembered for
// the rest of the session.
type approvalBroker struct {
	mu      sync.Mutex
	pending map[string]*pendingApproval
	order   []string
	session map[string]bool
}

type pendingApproval struct {
	req    protocol.ApprovalRequest
	answer chan protocol.ReviewDecision
	thread *Thread
}

func (b *approvalBroker) init() {
	b.pending = map[string]*pendingApproval{}
	b.session = map[string]bool{}
}

// sessionKey identifies what an approve-for-session decision covers: a
// command in one sandbox and one directory (approving `make` sandboxed
// approves neither `make` unsandboxed nor `make` elsewhere), a patch's
// files relative to one directory, a working directory.
func sessionKey(req protocol.ApprovalRequest) string {
	if req.MCP != nil {
		// An MCP server runs outside grove's sandbox: neither the sandbox
		// nor the directory is what was approved, the server's tool is
		// (Codex's McpToolApprovalKey: server and tool, not arguments).
		return "mcp\x00" + req.MCP.Server + "\x00" + req.MCP.Tool
	}
	switch req.Kind {
	case protocol.ApprovalExec:
		return "exec\x00" + string(req.Sandbox) + "\x00" + req.Cwd + "\x00" + req.Command
	case protocol.ApprovalPatch:
		return "patch\x00" + req.Cwd + "\x00" + strings.Join(req.Files, "\x00")
	case protocol.ApprovalWorkingDir:
		return "dir\x00" + req.Dir
	}
	return string(req.Kind) + "\x00" + req.Command + req.Dir
}

// rememberable reports whether an approve-for-session decision on req may
// be remembered and reused. Running a command outside the sandbox of a
// sandboxed thread (an escalation), or in a sandbox the request does not
// name, is asked every time. An MCP tool call is remembered unless its
// approval mode asks before every call (protocol.MCPToolApproval).
func rememberable(t *Thread, req protocol.ApprovalRequest) bool {
	if req.MCP != nil {
		return req.OffersSession()
	}
	if req.Kind != protocol.ApprovalExec {
		return true
	}
	switch req.Sandbox {
	case "":
		return false
	case protocol.SandboxDangerFullAccess:
		return t.sandbox.Mode == protocol.SandboxDangerFullAccess
	}
	return true
}

// PendingApprovals lists unanswered requests, oldest first.
func (e *Engine) PendingApprovals() []protocol.ApprovalRequest {
	b := &e.approvals
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]protocol.ApprovalRequest, 0, len(b.order))
	for _, id := range b.order {
		out = append(out, b.pending[id].req)
	}
	return out
}

// requestApproval asks for a decision on behalf of thread t; route is the
// thread whose session's user should answer (the root for sub-agents).
// Headless engines decide by policy without blocking.
func (e *Engine) requestApproval(ctx context.Context, t, route *Thread, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
	req.ID = uuid.NewString()
	req.ThreadID = t.id
	if req.RouteThreadID == "" {
		req.RouteThreadID = route.id
	}
	if len(req.Chain) == 0 {
		req.Chain = e.chain(t)
	}
	// What the engine will not remember, no front end offers.
	req.OnceOnly = !rememberable(t, req)
	b := &e.approvals
	b.mu.Lock()
	remembered := !req.OnceOnly && b.session[sessionKey(req)]
	b.mu.Unlock()
	if remembered {
		return protocol.DecisionApprovedForSession, nil
	}
	if e.opts.Headless || e.nonInteractive(t) {
		// Decided here, by policy: only the decision is published. A
		// request event would reach the app-server's and ACP's clients as a
		// question whose answer nobody reads (a sessions child, a Task
		// agent that never asks, a headless run).
		d := e.headlessDecision(t, req)
		t.publish(protocol.NewEvent(t.id, "", protocol.ApprovalResolvedMsg{Request: req, Decision: d, Resolution: protocol.ResolvedByPolicy}))
		if !d.Approved() && req.Kind != protocol.ApprovalWorkingDir {
			// Tell the model why, in words it can act on.
			return d, e.noApproverError(t)
		}
		return d, nil
	}
	p := &pendingApproval{req: req, answer: make(chan protocol.ReviewDecision, 1), thread: t}
	b.mu.Lock()
	b.pending[req.ID] = p
	b.order = append(b.order, req.ID)
	b.mu.Unlock()
	r := req
	t.publish(protocol.NewEvent(t.id, "", protocol.ApprovalRequestedMsg{Request: r}))
	t.flush()
	select {
	case d := <-p.answer:
		return d, nil
	case <-ctx.Done():
		if b.remove(req.ID) != nil {
			// Nobody answered: the turn was interrupted or ended, or the
			// agent closed. Say so, not "denied".
			t.publish(protocol.NewEvent(t.id, "", protocol.ApprovalResolvedMsg{Request: r, Decision: protocol.DecisionAbort, Resolution: protocol.ResolvedCancelled}))
		} else {
			// Answered concurrently with the cancellation: honour the answer.
			select {
			case d := <-p.answer:
				return d, nil
			default:
			}
		}
		return protocol.DecisionAbort, ctx.Err()
	}
}

// headlessDecision decides a request no one can answer. A working
// directory is approved when the user said so (--approve-workdirs), and
// under approval_policy = "never" only when it widens nothing: a child's
// writable roots come from its working directory, so one outside the
// asking thread's roots (issue 31 item 9: the child wrote ~/.bashrc) needs
// a person's yes, and with nobody to ask it is no.
func (e *Engine) headlessDecision(t *Thread, req protocol.ApprovalRequest) protocol.ReviewDecision {
	if req.Kind != protocol.ApprovalWorkingDir || req.Host != "" {
		return protocol.DecisionDenied // a host a project names needs a person
	}
	if e.opts.ApproveWorkdirs || e.ApprovalPolicy() == protocol.ApprovalNever && !widensRoots(t, req.Dir) {
		return protocol.DecisionApproved
	}
	return protocol.DecisionDenied
}

// widensRoots reports whether a child of t working in dir could write
// where t cannot: t is workspace-write and dir is outside its roots.
func widensRoots(t *Thread, dir string) bool {
	t.mu.Lock()
	policy, cwd := t.sandbox, t.cwd
	t.mu.Unlock()
	if policy.Mode != protocol.SandboxWorkspaceWrite {
		return false // read-only writes nowhere; full access everywhere already
	}
	return sandbox.CheckWritable(policy, cwd, dir) != nil
}

func (b *approvalBroker) remove(id string) *pendingApproval {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pending[id]
	if p == nil {
		return nil
	}
	delete(b.pending, id)
	for i, x := range b.order {
		if x == id {
			b.order = append(b.order[:i], b.order[i+1:]...)
			break
		}
	}
	return p
}

// resolve answers a pending request (first answer wins).
func (b *approvalBroker) resolve(e *Engine, id string, d protocol.ReviewDecision) error {
	switch d {
	case protocol.DecisionApproved, protocol.DecisionApprovedForSession, protocol.DecisionDenied, protocol.DecisionAbort:
	default:
		return fmt.Errorf("unknown decision %q", d)
	}
	p := b.remove(id)
	if p == nil {
		return fmt.Errorf("no pending approval %s (already answered or cancelled)", id)
	}
	if d == protocol.DecisionApprovedForSession && (!p.req.OffersSession() || !rememberable(p.thread, p.req)) {
		// Approves this request only, and says so: what is published is
		// what the engine did (Codex turns AcceptForSession into Accept in
		// an MCP tool's prompt and writes modes).
		d = protocol.DecisionApproved
	}
	if d == protocol.DecisionApprovedForSession {
		b.mu.Lock()
		b.session[sessionKey(p.req)] = true
		b.mu.Unlock()
	}
	r := p.req
	p.thread.publish(protocol.NewEvent(p.req.ThreadID, "", protocol.ApprovalResolvedMsg{Request: r, Decision: d}))
	p.answer <- d
	if d == protocol.DecisionAbort {
		// Abort also interrupts the asking thread's turn.
		p.thread.interrupt()
	}
	return nil
}
