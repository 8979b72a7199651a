package engine

import "fmt"

// nonInteractive reports whether t or one of its ancestors was spawned
// non-interactive (ChildSpec.NonInteractive): its approvals are decided by
// policy, as in a headless session, and never wait for the user.
func (e *Engine) nonInteractive(t *Thread) bool {
	for cur := t; cur != nil; cur = e.thread(cur.parentID) {
		cur.mu.Lock()
		ni := cur.run.nonInteractive
		cur.mu.Unlock()
		if ni {
			return true
		}
		if cur.parentID == "" {
			return false
		}
	}
	return false
}

// noApproverError tells the model why a request was refused, in words it
// can act on.
func (e *Engine) noApproverError(t *Thread) error {
	if !e.opts.Headless {
		return fmt.Errorf("this agent runs non-interactively (a sub-session): no one can approve its requests (approval_policy = %s); stay within the %s sandbox, or report back what needs approval", e.ApprovalPolicy(), t.sandbox.Mode)
	}
	return fmt.Errorf("no one can approve in this headless session (grove exec, approval_policy = %s); stay within the %s sandbox, or the user can rerun with -a never or a wider --sandbox", e.ApprovalPolicy(), t.sandbox.Mode)
}
