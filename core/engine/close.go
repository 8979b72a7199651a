package engine

import (
	"context"
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
	e.closeThreads(context.Background(), e.subtree(target), caller)
	return nil
}

// closeThreads closes nodes (each parent before its descendants in the
// slice, as subtree lists them). Every thread is cancelled first and then
// all are waited for under one deadline, the close grace or ctx's, whichever
// comes first, so N stuck threads cost one grace period, not N. A thread
// still running when the deadline passes is marked shut down anyway. They
// are finalised children first.
func (e *Engine) closeThreads(ctx context.Context, nodes []*Thread, caller *Thread) {
	type closing struct {
		t    *Thread
		done <-chan struct{} // nil: nothing to wait for
	}
	var list []closing
	for i := len(nodes) - 1; i >= 0; i-- {
		t := nodes[i]
		t.mu.Lock()
		cancel, done, ok := t.life.beginClose()
		t.mu.Unlock()
		if !ok {
			continue
		}
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
			continue
		}
		c := closing{t: t}
		if cancel != nil {
			c.done = done
		}
		list = append(list, c)
	}
	grace := time.NewTimer(e.closeGrace)
	defer grace.Stop()
	expired := false
	for _, c := range list {
		if c.done != nil && !expired {
			select {
			case <-c.done:
			case <-grace.C:
				expired = true
			case <-ctx.Done():
				expired = true
			}
		}
		if c.done != nil && expired {
			select {
			case <-c.done:
			default:
				e.warnOnce(c.t.id, "close", fmt.Errorf("thread did not stop within the close deadline (%s or the shutdown's); marking it shut down anyway", e.closeGrace))
			}
		}
		e.finalizeClose(c.t)
	}
}

func (e *Engine) finalizeClose(t *Thread) {
	e.sessions.CloseOwner(t.id) // its sessions' process trees die with it
	t.setStatus(protocol.Shutdown())
	t.mu.Lock()
	rec := t.life.finishClose()
	t.mu.Unlock()
	t.status.closeFeeds()
	ev := e.bus.Publish(protocol.NewEvent(t.id, "", protocol.ThreadClosedMsg{}))
	if rec != nil {
		_ = rec.AppendEvent(ev)
		if err := rec.Close(); err != nil {
			e.warnOnce(t.id, "rollout", err)
		}
	}
}
