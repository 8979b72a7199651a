package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// ApprovalPolicy is the engine's current approval policy: Options'
// until a front end changes it (OpSetApprovalPolicy, e.g. ACP's
// session/set_mode). Every tool call reads it when it starts.
func (e *Engine) ApprovalPolicy() protocol.ApprovalPolicy {
	e.policyMu.Lock()
	defer e.policyMu.Unlock()
	if e.policy == "" {
		return e.opts.ApprovalPolicy
	}
	return e.policy
}

// setApprovalPolicy changes the policy for the whole tree (the policy is
// the session's, not one thread's) and says so on the thread that asked.
func (e *Engine) setApprovalPolicy(t *Thread, p protocol.ApprovalPolicy) error {
	if !p.Valid() {
		return fmt.Errorf("unknown approval policy %q (untrusted, on-request, on-failure, never)", p)
	}
	e.policyMu.Lock()
	e.policy = p
	e.policyMu.Unlock()
	e.bus.Publish(protocol.NewEvent(t.id, "", protocol.WarningMsg{Text: fmt.Sprintf("approval policy set to %s", p)}))
	return nil
}
