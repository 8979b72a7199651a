package engine

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
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

// TestViewSessionIsReadOnlyWhileHeld: a session another grove is writing
// opens for viewing (its history, nothing written); input to it is refused
// naming the lock until that grove is gone, then continues the session.
func TestViewSessionIsReadOnlyWhileHeld(t *testing.T) {
	started := make(chan struct{}, 1)
	s := script{"root": func(ctx context.Context, tn turn) (model.Response, error) {
		switch tn.prompt {
		case "first":
			return text("first answer"), nil
		case "later":
			return text("later answer"), nil
		}
		started <- struct{}{}
		return block(ctx, tn)
	}}
	env := newEnv(t, s, nil)
	env.send("first")
	env.rootFinal(1)
	env.send("hold")
	<-started
	entry, err := rollout.FindSession(env.home, string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(entry.RolloutPath)
	e2, env2 := env.openBeside()
	id, err := e2.ViewSession(string(env.root))
	if err != nil || id != env.root {
		t.Fatalf("view: %v %v", id, err)
	}
	if lastAssistantMessage(e2.History(id)) != "first answer" {
		t.Fatalf("viewed history %+v", e2.History(id))
	}
	err = e2.SubmitText(id, "later")
	var le *rollout.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("input to a held session: %v, want a LockedError", err)
	}
	if after, _ := os.ReadFile(entry.RolloutPath); string(after) != string(before) {
		t.Fatal("viewing wrote into the live session")
	}
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e2.SubmitText(id, "later"); err != nil {
		t.Fatalf("input once the other grove is gone: %v", err)
	}
	env2.waitFor("the continued turn", func(ev protocol.Event) bool {
		m, err := ev.Msg()
		am, ok := m.(protocol.AgentMessageMsg)
		return err == nil && ok && am.Text == "later answer"
	})
}

// TestForkReadsForkHome: an engine whose store is elsewhere (an ephemeral
// session's temporary home) forks a session of ForkHome's store; the copy
// is written to its own Home only and the source store gains nothing.
func TestForkReadsForkHome(t *testing.T) {
	env := newEnv(t, script{"root": func(ctx context.Context, tn turn) (model.Response, error) { return text("answer"), nil }}, nil)
	env.send("first")
	env.rootFinal(1)
	opts := env.e.opts
	opts.ForkHome, opts.Home = env.home, t.TempDir()
	e2, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e2.Shutdown(context.Background()) })
	if _, err := e2.ResumeSession(string(env.root)); !rollout.IsNoSession(err) {
		t.Fatalf("resume read ForkHome: %v", err)
	}
	fork, err := e2.ForkSession(string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rollout.FindSession(env.home, string(fork)); !rollout.IsNoSession(err) {
		t.Fatalf("the fork is in the source store: %v", err)
	}
	fe, err := rollout.FindSession(opts.Home, string(fork))
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := rollout.Read(fe.RolloutPath); err != nil || lastAssistantMessage(fs.Items) != "answer" {
		t.Fatalf("fork history %v %v", fs, err)
	}
}
