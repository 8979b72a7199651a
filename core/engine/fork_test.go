package engine

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/rollout"
)

// TestSecondWriterIsRefusedAndCanFork: a second grove resuming a session
// that a live one is writing (here mid-turn) is refused with the lock
// named and writes nothing to it; a fork continues from the same history
// in a new session.
func TestSecondWriterIsRefusedAndCanFork(t *testing.T) {
	started := make(chan struct{}, 1)
	s := script{"root": func(ctx context.Context, tn turn) (model.Response, error) {
		if tn.prompt == "first" {
			return text("first answer"), nil
		}
		started <- struct{}{}
		return block(ctx, tn)
	}}
	env := newEnv(t, s, nil)
	env.send("first")
	env.rootFinal(1)
	env.send("second")
	<-started // the live grove is mid-turn: its turn is open in the rollout
	entry, err := rollout.FindSession(env.home, string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(entry.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := New(context.Background(), env.e.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e2.Shutdown(context.Background()) })
	_, err = e2.ResumeSession(string(env.root))
	var le *rollout.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second resume: %v, want a LockedError", err)
	}
	after, _ := os.ReadFile(entry.RolloutPath)
	if string(after) != string(before) {
		t.Fatal("the refused resume wrote into the live session's rollout")
	}
	fork, err := e2.ForkSession(string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	if fork == env.root {
		t.Fatal("the fork reused the session id")
	}
	fe, err := rollout.FindSession(env.home, string(fork))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := rollout.Read(fe.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	if lastAssistantMessage(fs.Items) != "first answer" || fs.Items[0].Content == "" {
		t.Fatalf("fork history %+v", fs.Items)
	}
	// The open turn is closed in the copy: every call answered, a notice.
	if planCrashRepair(&rollout.Session{Items: fs.Items}) != nil {
		t.Fatal("the fork's history needs a crash repair")
	}
}
