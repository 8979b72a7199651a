package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// TestLiveOrderEqualsRolloutOrder: tool calls of one reply run in parallel
// and a sub-agent's activity lands in its parent's rollout from the
// child's goroutine; every thread's events still reach subscribers in the
// order its rollout holds them, so a resumed screen (replayed from the
// rollout) shows cards and messages in the order the live one did.
func TestLiveOrderEqualsRolloutOrder(t *testing.T) {
	const n = 12
	turns := 0
	env := newEnv(t, script{
		"root": func(ctx context.Context, tn turn) (model.Response, error) {
			turns++
			if turns > 2 {
				return text("all done"), nil
			}
			var cs []model.ToolCallRequest
			for i := range n {
				cs = append(cs, toolCall(fmt.Sprintf("t%d-c%d", turns, i), "list_dir", map[string]any{"path": "."}))
			}
			cs = append(cs, toolCall(fmt.Sprintf("t%d-spawn", turns), "spawn_agent", map[string]any{"agent_type": "explorer", "message": "look around"}))
			return model.Response{Text: fmt.Sprintf("running batch %d", turns), ToolCalls: cs}, nil
		},
		"explorer": func(ctx context.Context, tn turn) (model.Response, error) {
			if len(tn.outputs) == 0 {
				return calls(toolCall("e1", "list_dir", map[string]any{"path": "."}), toolCall("e2", "list_dir", map[string]any{"path": "."})), nil
			}
			return text("explored"), nil
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	for _, th := range env.e.Threads() {
		if th.RolloutPath == "" {
			continue
		}
		sess, err := rollout.Read(th.RolloutPath)
		if err != nil {
			t.Fatalf("read rollout of %s: %v", th.ID.Short(), err)
		}
		// Compared: the events both hold (input_queued is recorded only;
		// deltas are published only).
		all := env.all(func(ev protocol.Event) bool { return ev.ThreadID == th.ID })
		published := map[string]bool{}
		for _, ev := range all {
			published[orderKey(ev)] = true
		}
		var recorded []string
		inRollout := map[string]bool{}
		for _, ev := range sess.Events {
			if k := orderKey(ev); published[k] {
				recorded = append(recorded, k)
				inRollout[k] = true
			}
		}
		var live []string
		for _, ev := range all {
			if k := orderKey(ev); inRollout[k] {
				live = append(live, k)
			}
		}
		if strings.Join(live, "\n") != strings.Join(recorded, "\n") {
			t.Errorf("thread %s: live order differs from its rollout:\nlive:\n  %s\nrollout:\n  %s", th.ID.Short(),
				strings.Join(live, "\n  "), strings.Join(recorded, "\n  "))
		}
	}
}

// orderKey names an event for order comparison: its kind and what it is
// about (call id, status, text).
func orderKey(ev protocol.Event) string {
	k := string(ev.Type)
	if ev.Tool != nil {
		k += " " + ev.Tool.CallID
	}
	if ev.Status != nil {
		k += " " + string(ev.Status.Kind)
	}
	if ev.Message != "" {
		k += " " + ev.Message
	}
	return k + " @" + ev.Timestamp.UTC().Format(time.RFC3339Nano)
}
