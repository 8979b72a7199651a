package engine

import (
	"context"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// TestInterruptRightAfterTurnStartedKeepsTheInputInThatTurn: an interrupt
// landing just after turn_started ends that turn with its input (in history
// and as its user_message event), not an empty turn whose input runs later.
func TestInterruptRightAfterTurnStartedKeepsTheInputInThatTurn(t *testing.T) {
	env := newEnv(t, script{
		"root": func(context.Context, turn) (model.Response, error) { return text("ran"), nil },
	}, nil)
	root := env.e.thread(env.root)
	var once sync.Once
	testHookBeforeTakeInput = func(th *Thread) {
		if th == root {
			once.Do(func() { env.e.interruptTree(th) })
		}
	}
	t.Cleanup(func() { testHookBeforeTakeInput = nil })
	env.send("first")
	if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("status %v, want interrupted", st)
	}
	started := env.all(func(ev protocol.Event) bool { return ev.ThreadID == env.root && ev.Type == protocol.EventTurnStarted })
	if len(started) != 1 {
		t.Fatalf("%d turns started", len(started))
	}
	users := env.all(func(ev protocol.Event) bool { return ev.ThreadID == env.root && ev.Type == protocol.EventUserMessage })
	if len(users) != 1 || users[0].Message != "first" || users[0].TurnID != started[0].TurnID {
		t.Fatalf("user_message events %+v, want one for turn %s", users, started[0].TurnID)
	}
	h := env.e.History(env.root)
	if len(h) != 1 || h[0].Content != "first" {
		t.Fatalf("history after the interrupted turn: %+v", h)
	}
	root.mu.Lock()
	left := len(root.pending)
	root.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d input items still queued for another turn", left)
	}
}
