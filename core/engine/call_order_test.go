package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A reply's calls are announced in the order the model made them, before
// any runs (issue 35 item 14): five spawns of one reply start their
// threads in any order, but front ends list them as asked.
func TestToolBeginsInCallOrder(t *testing.T) {
	var want []string
	for i := range 5 {
		want = append(want, fmt.Sprintf("sp%d", i))
	}
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds > 0 {
				return text("spawned"), nil
			}
			var cs []model.ToolCallRequest
			for _, id := range want {
				cs = append(cs, toolCall(id, "spawn_agent", map[string]any{"agent_type": "worker", "message": "work"}))
			}
			return calls(cs...), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("done"), nil },
	}
	for range 3 {
		env := newEnv(t, s, nil)
		env.send("go")
		env.rootFinal(1)
		var got []string
		for _, ev := range env.all(func(ev protocol.Event) bool {
			return ev.ThreadID == env.root && ev.Type == protocol.EventToolCallBegin
		}) {
			got = append(got, ev.Tool.CallID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("begins %v, want %v", got, want)
		}
	}
}
