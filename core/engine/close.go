package engine

import (
	"fmt"
	"time"

	"github.com/grovecli/grove/protocol"
)

// closeSubtree closes target and all its descendants, children first. Each
// closed thread's turn and commands are cancelled, its status becomes
// shutdown and its rollout is flushed and closed. caller (may be nil) is the
// thread running close_agent: if it is inside the subtree it is finalised
// after its current tool call returns instead of being waited on.
func (e *Engine) closeSubtree(target, caller *Thread) error {
	nodes := e.subtree(target)
	for i := len(nodes) - 1; i >= 0; i-- {
		e.closeOne(nodes[i], caller)
	}
	return nil
}

func (e *Engine) closeOne(t, caller *Thread) {
	t.mu.Lock()
	if t.closed || t.closing {
		t.mu.Unlock()
		return
	}
	t.closing = true
	cancel, done := t.cancel, t.done
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if t == caller {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			<-done
			e.finalizeClose(t)
		}()
		return
	}
	if cancel != nil {
		select {
		case <-done:
		case <-time.After(e.closeGrace):
			e.warnOnce(t.id, "close", fmt.Errorf("thread did not stop within %s; marking it shut down anyway", e.closeGrace))
		}
	}
	e.finalizeClose(t)
}

func (e *Engine) finalizeClose(t *Thread) {
	t.setStatus(protocol.Shutdown())
	t.mu.Lock()
	rec := t.rec
	t.rec = nil
	t.closed = true
	t.closing = false
	t.mu.Unlock()
	t.closeFeeds()
	ev := e.bus.Publish(protocol.Event{Type: protocol.EventThreadClosed, ThreadID: t.id})
	if rec != nil {
		_ = rec.AppendEvent(ev)
		if err := rec.Close(); err != nil {
			e.warnOnce(t.id, "rollout", err)
		}
	}
}
