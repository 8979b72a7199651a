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
	// The input, then the notice the interrupt leaves (agents.interrupt_message).
	if len(h) != 2 || h[0].Content != "first" || !h[1].IsTurnAbortedNotice() {
		t.Fatalf("history after the interrupted turn: %+v", h)
	}
	root.mu.Lock()
	left := len(root.turn.pending)
	root.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d input items still queued for another turn", left)
	}
}

// TestClientIDEchoedInTurnStarted: a front end names its input and learns
// the id of the turn that took it from turn_started (and user_message).
func TestClientIDEchoedInTurnStarted(t *testing.T) {
	env := newEnv(t, script{
		"root": func(context.Context, turn) (model.Response, error) { return text("ok"), nil },
	}, nil)
	if err := env.e.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: env.root, Text: "hello", ClientID: "req-7"}); err != nil {
		t.Fatal(err)
	}
	started := env.waitFor("turn_started", func(ev protocol.Event) bool {
		return ev.ThreadID == env.root && ev.Type == protocol.EventTurnStarted
	})
	if len(started.ClientIDs) != 1 || started.ClientIDs[0] != "req-7" || started.TurnID == "" {
		t.Fatalf("turn_started %+v does not name the input", started)
	}
	user := env.waitFor("user_message", func(ev protocol.Event) bool {
		return ev.ThreadID == env.root && ev.Type == protocol.EventUserMessage
	})
	if user.TurnID != started.TurnID || len(user.ClientIDs) != 1 || user.ClientIDs[0] != "req-7" {
		t.Fatalf("user_message %+v", user)
	}
	env.rootFinal(1)
}
