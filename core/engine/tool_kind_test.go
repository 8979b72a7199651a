package engine

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Every tool call's begin and end events carry the kind the orchestrator
// took from the handler — a built-in, a collab call, a tool nobody
// registered — live and in the rollout alike.
func TestToolCallEventsCarryTheKind(t *testing.T) {
	done := false
	env := newEnv(t, script{
		"root": func(ctx context.Context, tn turn) (model.Response, error) {
			if done {
				return text("done"), nil
			}
			done = true
			return calls(
				toolCall("ls", "list_dir", map[string]any{"path": "."}),
				toolCall("sp", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "look"}),
				toolCall("nx", "no_such_tool", map[string]any{}),
			), nil
		},
		"explorer": func(ctx context.Context, tn turn) (model.Response, error) { return text("seen"), nil },
	}, nil)
	env.send("go")
	env.rootFinal(1)
	want := map[string]protocol.ToolKind{"ls": protocol.ToolKindList, "sp": protocol.ToolKindCollab, "nx": protocol.ToolKindOther}
	var root protocol.ThreadInfo
	for _, th := range env.e.Threads() {
		if th.ParentID == "" {
			root = th
		}
	}
	for _, ev := range env.all(func(ev protocol.Event) bool { return ev.Tool != nil && ev.ThreadID == root.ID }) {
		if k, ok := want[ev.Tool.CallID]; ok && ev.Tool.Kind != k {
			t.Errorf("live %s of %s: kind %q, want %q", ev.Type, ev.Tool.Name, ev.Tool.Kind, k)
		}
	}
	sess, err := rollout.Read(root.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, ev := range sess.Events {
		if ev.Tool == nil {
			continue
		}
		if k, ok := want[ev.Tool.CallID]; ok {
			seen++
			if ev.Tool.Kind != k {
				t.Errorf("recorded %s of %s: kind %q, want %q", ev.Type, ev.Tool.Name, ev.Tool.Kind, k)
			}
		}
	}
	if seen != 2*len(want) {
		t.Errorf("the rollout holds %d begin/end events of the calls, want %d", seen, 2*len(want))
	}
}
