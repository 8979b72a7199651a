package engine

import (
	"fmt"
	"time"

	"github.com/grovecli/grove/protocol"
)

// startObserver publishes every status change of child as a BackgroundEvent
// on parent (seed 000): finals carry IsFinal; the observer keeps watching
// after a final status (a child can be given more input) and ends only when
// the child's status stream closes.
func (e *Engine) startObserver(parent, child *Thread, callID string) {
	feed := child.status.subscribe(child.finalised)
	start := e.now()
	publish := func(st protocol.AgentStatus) {
		bg := protocol.BackgroundEvent{ChildID: child.id, Status: st, IsFinal: st.IsFinal(), Message: backgroundMessage(child, callID, st, e.now().Sub(start))}
		parent.publish(protocol.NewEvent(parent.id, "", protocol.BackgroundMsg{Event: bg}))
	}
	st, _ := child.Status()
	publish(st)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			st, ok := feed.next(e.ctx.Done())
			if !ok {
				return
			}
			publish(st)
		}
	}()
}

// backgroundMessage renders a child's status for its parent.
func backgroundMessage(child *Thread, callID string, st protocol.AgentStatus, elapsed time.Duration) string {
	child.mu.Lock()
	describe := child.run.describe
	child.mu.Unlock()
	if describe != nil {
		if m := describe(child.id, st); m != "" {
			return m
		}
	}
	who := fmt.Sprintf("agent %s (%s) [%s]", child.role(), child.id, callID)
	switch st.Kind {
	case protocol.StatusCompleted:
		return fmt.Sprintf("%s completed in %s: %s", who, fmtDuration(elapsed), st.Message)
	case protocol.StatusErrored:
		return fmt.Sprintf("%s errored after %s: %s", who, fmtDuration(elapsed), st.Message)
	case protocol.StatusShutdown:
		return fmt.Sprintf("%s was shut down after %s", who, fmtDuration(elapsed))
	case protocol.StatusInterrupted:
		if st.HasMessage {
			return fmt.Sprintf("%s was interrupted after %s; it had said: %s", who, fmtDuration(elapsed), st.Message)
		}
		return fmt.Sprintf("%s was interrupted", who)
	case protocol.StatusRunning:
		return fmt.Sprintf("%s is running", who)
	case protocol.StatusPendingInit:
		return fmt.Sprintf("%s is starting", who)
	}
	return fmt.Sprintf("%s is %s", who, st.Kind)
}
