package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

func countUser(items []protocol.Item, text string) int {
	n := 0
	for _, it := range items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser && it.Content == text {
			n++
		}
	}
	return n
}

// TestQueuedInputSurvivesKill: a message queued while a turn runs is in the
// rollout at once; after kill -9 the resume delivers it, exactly once, and
// a later resume does not deliver it again.
func TestQueuedInputSurvivesKill(t *testing.T) {
	inTurn := make(chan struct{}, 1)
	var mu sync.Mutex
	var requests [][]protocol.Item
	s := script{
		"root": func(ctx context.Context, tn turn) (model.Response, error) {
			mu.Lock()
			requests = append(requests, tn.req.Items)
			mu.Unlock()
			if tn.prompt == "first" {
				inTurn <- struct{}{}
				<-ctx.Done() // busy until grove dies
				return model.Response{}, ctx.Err()
			}
			return text("ack " + tn.prompt), nil
		},
	}
	env := newEnv(t, s, nil)
	env.send("first")
	<-inTurn
	env.send("queued while busy")
	// kill -9: the disk as it is now.
	env.killKeepingDisk()

	e2, env2 := env.resumeInNewEngine()
	env2.waitFor("the queued message answered", func(ev protocol.Event) bool {
		return ev.ThreadID == env.root && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusCompleted && strings.HasPrefix(ev.Status.Message, "ack ")
	})
	if n := countUser(e2.History(env.root), "queued while busy"); n != 1 {
		t.Fatalf("queued message %d times in history after resume", n)
	}
	mu.Lock()
	last := requests[len(requests)-1]
	mu.Unlock()
	if countUser(last, "queued while busy") != 1 {
		t.Fatalf("the model did not get the queued message once: %+v", last)
	}
	if err := e2.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	before := len(requests)
	mu.Unlock()

	// A second resume has nothing left to deliver.
	e3, _ := env.resumeInNewEngine()
	if n := countUser(e3.History(env.root), "queued while busy"); n != 1 {
		t.Fatalf("second resume: queued message %d times", n)
	}
	if st, _ := e3.thread(env.root).Status(); st.Kind == protocol.StatusRunning {
		t.Fatalf("second resume started a turn: %v", st)
	}
	mu.Lock()
	after := len(requests)
	mu.Unlock()
	if after != before {
		t.Fatalf("second resume called the model again (%d → %d requests)", before, after)
	}
}
