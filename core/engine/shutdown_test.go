package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// TestShutdownClosesStuckThreadsUnderOneDeadline: threads that ignore their
// cancellation must not each cost a close grace period in turn; Shutdown
// honours its caller's deadline and still marks every thread shut down.
func TestShutdownClosesStuckThreadsUnderOneDeadline(t *testing.T) {
	const stuck = 3
	entered := make(chan struct{}, stuck)
	release := make(chan struct{})
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				var cs []model.ToolCallRequest
				for _, id := range []string{"a", "b", "c"} {
					cs = append(cs, toolCall(id, "spawn_agent", map[string]any{"agent_type": "worker", "message": "hang"}))
				}
				return calls(cs...), nil
			}
			return text("spawned"), nil
		},
		// A worker stuck in a call that ignores its context.
		"worker": func(context.Context, turn) (model.Response, error) {
			entered <- struct{}{}
			<-release
			return text("released"), nil
		},
	}, nil)
	env.e.closeGrace = time.Hour // the old serial close waited this per thread
	env.send("go")
	for range stuck {
		<-entered
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	returned := make(chan error, 1)
	go func() { returned <- env.e.Shutdown(ctx) }()
	var err error
	select {
	case err = <-returned:
	case <-time.After(60 * time.Second):
		close(release)
		t.Fatal("Shutdown ignored its deadline while threads were stuck")
	}
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want the deadline's error (goroutines were still stuck)", err)
	}
	list := env.e.Threads()
	if len(list) != stuck+1 {
		t.Fatalf("%d threads, want %d", len(list), stuck+1)
	}
	for _, th := range list {
		if st := statusOf(t, env.e, th.ID); st.Kind != protocol.StatusShutdown {
			t.Errorf("thread %s is %s after Shutdown, want shutdown", th.ID, st.Kind)
		}
	}
}
