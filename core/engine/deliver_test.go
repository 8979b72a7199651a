package engine

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Hammers send_input(interrupt=true) against running turns: bursts of
// interrupting messages from several goroutines while the agent works
// (each turn takes input at two steps). Whatever the interleaving, every
// message reaches the history and the agent ends each burst with a
// completed answer given after the last message; a message taken by the
// turn it cancels and left unanswered ends the burst interrupted instead.
func TestInterruptingInputIsNeverLost(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			runtime.Gosched()
			if tn.rounds == 0 {
				return calls(toolCall(fmt.Sprintf("l%d", len(tn.req.Items)), "list_agents", map[string]any{})), nil
			}
			return text("ack " + tn.prompt), nil
		},
	}, nil)
	root := env.e.thread(env.root)
	const bursts, senders = 40, 4
	for b := range bursts {
		var wg sync.WaitGroup
		for s := range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.Gosched()
				if !root.deliver(true, protocol.UserMessage(fmt.Sprintf("b%d-s%d", b, s))) {
					t.Errorf("deliver refused on an open thread")
				}
			}()
		}
		wg.Wait()
		st := waitIdle(t, root)
		if st.Kind != protocol.StatusCompleted {
			t.Fatalf("burst %d ended %v: an interrupting message was absorbed by the cancelled turn", b, st)
		}
		hist := env.e.History(env.root)
		if last := hist[len(hist)-1]; last.Role != protocol.RoleAssistant || !strings.HasPrefix(last.Content, "ack ") {
			t.Fatalf("burst %d: the history does not end with an answer: %+v", b, last)
		}
		for s := range senders {
			want := fmt.Sprintf("b%d-s%d", b, s)
			found := false
			for _, it := range hist {
				found = found || it.Role == protocol.RoleUser && it.Content == want
			}
			if !found {
				t.Fatalf("burst %d: message %s never reached the conversation", b, want)
			}
		}
	}
}

// waitIdle returns the thread's status once no turn runs and no input is
// queued (deadline only bounds a hang).
func waitIdle(t *testing.T, th *Thread) protocol.AgentStatus {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		th.status.mu.Lock()
		th.mu.Lock()
		idle := !th.turn.running && len(th.turn.pending) == 0 && th.status.cur.Kind != protocol.StatusRunning
		st, ch := th.status.cur, th.status.changed
		th.mu.Unlock()
		th.status.mu.Unlock()
		if idle {
			return st
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("thread never became idle; status %v", st)
		}
	}
}

// An interrupting message that lands just before a turn step takes its
// input (after the step's interrupt check) is answered by the next turn;
// it is not absorbed into the cancelled turn and left unanswered.
func TestInterruptJustBeforeInputIsTakenIsAnswered(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.prompt == "first" && tn.rounds == 0 {
				return calls(toolCall("l", "list_agents", map[string]any{})), nil
			}
			return text("ack " + tn.prompt), nil
		},
	}, nil)
	root := env.e.thread(env.root)
	var once sync.Once
	testHookBeforeTakeInput = func(th *Thread) {
		second := th.budget.len() > 0 // not the turn's first step
		if th == root && second {
			once.Do(func() { th.deliver(true, protocol.UserMessage("interrupting")) })
		}
	}
	t.Cleanup(func() { testHookBeforeTakeInput = nil })
	env.send("first")
	if st := env.rootFinal(1); st.Kind != protocol.StatusCompleted || st.Message != "ack interrupting" {
		t.Fatalf("the interrupting message was not answered: %v", st)
	}
}
