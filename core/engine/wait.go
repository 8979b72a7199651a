package engine

import (
	"context"
	"reflect"
	"time"

	"github.com/grovecli/grove/protocol"
)

// clampWait applies seed 000's wait timeout contract.
func (e *Engine) clampWait(ms *int64) time.Duration {
	if ms == nil {
		return e.waitDefault
	}
	d := time.Duration(*ms) * time.Millisecond
	return min(max(d, e.waitMin), e.waitMax)
}

// waitAny blocks until at least one of ids is final or interrupted, or the
// timeout passes. It returns the first such status plus any others at that
// moment; an unknown id is final (not_found) at once. Interrupted is not
// final (the agent can take more input), but an interrupted agent does
// nothing until someone sends it input, so waiting on would only run into
// the timeout.
func (e *Engine) waitAny(ctx context.Context, ids []protocol.ThreadID, timeout time.Duration) (map[protocol.ThreadID]protocol.AgentStatus, bool, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		final := map[protocol.ThreadID]protocol.AgentStatus{}
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)},
		}
		for _, id := range ids {
			t := e.thread(id)
			if t == nil {
				final[id] = protocol.NotFound()
				continue
			}
			st, ch := t.status.watch()
			if st.IsFinal() || st.Kind == protocol.StatusInterrupted {
				final[id] = st
				continue
			}
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
		}
		if len(final) > 0 {
			return final, false, nil
		}
		chosen, _, _ := reflect.Select(cases)
		switch chosen {
		case 0:
			return nil, false, ctx.Err()
		case 1:
			return map[protocol.ThreadID]protocol.AgentStatus{}, true, nil
		}
	}
}
