package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// TestFailedSpawnNoteKeepsTheSpawn: seed 000 (clause 000-31): when setting
// the new agent's note fails, spawn_agent still succeeds (its agent_id is
// returned) and the error reaches the parent as a background warning. The
// fault is real: the child's rollout recorder is closed just before the
// note is written, so recording the note fails.
func TestFailedSpawnNoteKeepsTheSpawn(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("sp", "spawn_agent", map[string]any{"agent_type": "worker", "message": "do it", "thread_note": "the note"})), nil
			}
			return text("spawned"), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("done"), nil },
	}, nil)
	testHookBeforeSpawnNote = func(th *Thread) {
		if rec := th.recorder(); rec != nil {
			_ = rec.Close()
		}
	}
	t.Cleanup(func() { testHookBeforeSpawnNote = nil })
	env.send("start")
	if st := env.rootFinal(1); st.Message != "spawned" {
		t.Fatalf("root %+v", st)
	}
	out := env.toolOutput("sp")
	if out.IsError {
		t.Fatalf("spawn_agent failed with the note: %s", out.Output)
	}
	child := spawnedID(t, out.Output)
	ev := env.waitFor("the note's background warning", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventBackground && ev.Background.ChildID == child && ev.Background.Warning
	})
	if ev.ThreadID != env.root || !strings.HasPrefix(ev.Background.Message, "could not set thread note of agent "+string(child)+": record note: ") {
		t.Errorf("warning on %s: %q", ev.ThreadID, ev.Background.Message)
	}
}
