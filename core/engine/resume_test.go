package engine

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A whole session resumes in a new engine: the root's history, its tree of
// children (closed, resumable), and a torn last line from a killed process.
func TestResumeSessionRebuildsTree(t *testing.T) {
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch {
			case tn.prompt == "again":
				if tn.rounds == 0 {
					return calls(toolCall("r", "resume_agent", map[string]any{"id": agentIDFrom(findOutput(tn, "sp"))})), nil
				}
				if tn.rounds == 1 {
					return calls(toolCall("i", "send_input", map[string]any{"id": agentIDFrom(findOutput(tn, "sp")), "message": "what was your task?"})), nil
				}
				if tn.rounds == 2 {
					return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(findOutput(tn, "sp"))}})), nil
				}
				return text(tn.output("w")), nil
			case tn.rounds == 0:
				return calls(toolCall("sp", "spawn_agent", map[string]any{"agent_type": "worker", "message": "remember the number 7", "thread_note": "keeper"})), nil
			case tn.rounds == 1:
				return calls(toolCall("w0", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("sp"))}})), nil
			}
			return text("first session done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			var users []string
			for _, it := range tn.req.Items {
				if it.Role == protocol.RoleUser {
					users = append(users, inputText(it))
				}
			}
			return text("I saw: " + strings.Join(users, " / ")), nil
		},
	}
	env := newEnv(t, s, nil)
	env.send("start")
	if st := env.rootFinal(1); st.Message != "first session done" {
		t.Fatalf("first session %+v", st)
	}
	child := spawnedID(t, env.toolOutput("sp").Output)
	rootPath := env.e.thread(env.root).info().RolloutPath
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// kill -9 in the middle of a write.
	f, _ := os.OpenFile(rootPath, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"timestamp":"2026-11-23T10:00:00Z","type":"response_item","payload":{"ty`)
	_ = f.Close()

	e2, err := New(context.Background(), env.e.opts)
	if err != nil {
		t.Fatal(err)
	}
	e2.waitMin = 20 * time.Millisecond
	rec := &recorder{cond: make(chan struct{})}
	events, cancel := e2.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			rec.add(ev)
		}
	}()
	defer func() {
		_ = e2.Shutdown(context.Background())
		cancel()
		<-done
	}()
	root, err := e2.ResumeSession(string(env.root)[len(env.root)-8:])
	if err != nil {
		t.Fatal(err)
	}
	if root != env.root {
		t.Fatalf("resumed %s, want %s", root, env.root)
	}
	threads := e2.Threads()
	if len(threads) != 2 || threads[1].ID != child || threads[1].Status.Kind != protocol.StatusShutdown || threads[1].Note != "keeper" {
		t.Fatalf("tree %+v", threads)
	}
	if h := e2.History(root); len(h) < 6 {
		t.Fatalf("root history %d items", len(h))
	}
	env2 := &testEnv{t: t, e: e2, root: root, events: rec}
	env2.waitFor("torn-line warning", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventWarning && strings.Contains(ev.Message, "skipped unreadable line")
	})
	if err := e2.SubmitText(root, "again"); err != nil {
		t.Fatal(err)
	}
	// The turn answering "again" (the resumed idle status repeats the old answer).
	ev := env2.waitFor("resumed turn", func(ev protocol.Event) bool {
		return ev.ThreadID == root && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusCompleted && ev.Status.Message != "first session done"
	})
	if !strings.Contains(ev.Status.Message, "I saw: remember the number 7 / what was your task?") {
		t.Fatalf("resumed child lost its history: %q", ev.Status.Message)
	}
	if sess, err := rollout.Read(rootPath); err != nil || len(sess.Warnings) != 1 {
		t.Fatalf("rollout after resume: %v %v", sess, err)
	}
}

// findOutput returns the output of a call anywhere in the history.
func findOutput(tn turn, callID string) string {
	for _, it := range tn.req.Items {
		if it.Type == protocol.ItemFunctionCallOutput && it.CallID == callID {
			return it.Output
		}
	}
	return ""
}
