package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// The picker reads a session's sub-agent count and title from the index.
// A resumed session's index line says how many sub-agents it has as soon
// as it is open (it said 0 until the next turn, and kept 0 if grove was
// killed before one), and keeps its title.
func TestResumedSessionIndexKeepsCountAndTitle(t *testing.T) {
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("a", "spawn_agent", map[string]any{"agent_type": "worker", "message": "task a"}),
					toolCall("b", "spawn_agent", map[string]any{"agent_type": "worker", "message": "task b"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("a")), agentIDFrom(tn.output("b"))}})), nil
			}
			return text("done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) { return text("ok"), nil },
	}
	env := newEnv(t, s, nil)
	env.send("split the work")
	env.rootFinal(1)
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := latestEntry(t, env.e.opts.Home, env.root)
	if before.ChildCount != 2 || before.FirstPrompt != "split the work" {
		t.Fatalf("index before resume: %+v", before)
	}
	e2, _ := env.resumeInNewEngine()
	// No turn, no shutdown: what the index says while the session is open.
	after := latestEntry(t, e2.opts.Home, env.root)
	if after.ChildCount != 2 || after.FirstPrompt != "split the work" {
		t.Fatalf("index of the open resumed session: child_count %d first_prompt %q", after.ChildCount, after.FirstPrompt)
	}
}

// A compacted session keeps its title when resumed, though its compacted
// history no longer holds the first message.
func TestResumedCompactedSessionKeepsTitle(t *testing.T) {
	p := newCompactingProvider(t)
	env := newEnv(t, nil, func(o *Options) { o.Client = p.client(t) })
	env.send("the first prompt")
	env.rootFinal(1)
	env.send("long " + strings.Repeat("words and more words ", 6000)) // > the 20k tokens kept
	env.rootFinal(2)
	if err := env.e.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	env.rootFinal(3)
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	sess, err := rollout.Read(env.e.thread(env.root).info().RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := rollout.FirstPrompt(sess.Items); got == "the first prompt" {
		t.Fatal("the compaction kept the first message: this test needs a longer second one")
	}
	e2, _ := env.resumeInNewEngine()
	if got := latestEntry(t, e2.opts.Home, env.root).FirstPrompt; got != "the first prompt" {
		t.Fatalf("resumed title %q", got)
	}
}

func latestEntry(t *testing.T, home string, id protocol.ThreadID) rollout.IndexEntry {
	t.Helper()
	e, err := rollout.FindSession(home, string(id))
	if err != nil {
		t.Fatal(err)
	}
	return e
}
