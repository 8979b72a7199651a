package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A reply spawning exactly max_threads children at once must succeed every
// time: a spawn's slot reservation and its registered thread are one slot,
// never two (they were counted twice while the spawn finished, so some of
// the spawns failed at random).
func TestConcurrentSpawnsUpToMaxThreads(t *testing.T) {
	const limit, turns = 8, 12
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				var cs []model.ToolCallRequest
				for i := range limit {
					cs = append(cs, toolCall(fmt.Sprintf("s%d", i), "spawn_agent", map[string]any{"message": "answer"}))
				}
				return calls(cs...), nil
			case 1:
				var cs []model.ToolCallRequest
				for i := range limit {
					if id := agentIDFrom(tn.output(fmt.Sprintf("s%d", i))); id != "" {
						cs = append(cs, toolCall(fmt.Sprintf("c%d", i), "close_agent", map[string]any{"id": id}))
					}
				}
				if len(cs) > 0 {
					return calls(cs...), nil
				}
			}
			return text("done"), nil
		},
		"default": func(context.Context, turn) (model.Response, error) { return text("child done"), nil },
	}, func(o *Options) { o.MaxThreads = limit })
	for n := 1; n <= turns; n++ {
		env.send("spawn")
		env.rootFinal(n)
	}
	for _, ev := range env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventToolCallEnd && ev.Tool.Name == "spawn_agent" && ev.Tool.IsError
	}) {
		if strings.Contains(ev.Tool.Output, "max_threads") {
			t.Fatalf("spawn within the limit failed: %s", ev.Tool.Output)
		}
	}
}
