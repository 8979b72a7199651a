package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// One reply's spawns take agents.max_threads' slots in the order the model
// asked for them: with eight spawns under a limit of five, calls 1–5 start
// and 6–8 are refused, every time (the calls raced for the slots, so a
// random three were refused).
func TestSpawnSlotsFollowCallOrder(t *testing.T) {
	env, refused := spawnEight(t, -1)
	for i := range 8 {
		id := fmt.Sprintf("s%d", i)
		if out := env.toolOutput(id); i < 5 && (out.IsError || agentIDFrom(out.Output) == "") {
			t.Errorf("%s, within the first 5 asked for, did not start: %s", id, out.Output)
		}
		if i >= 5 && !refused(id) {
			t.Errorf("%s, after the first 5, was not refused for the limit: %s", id, env.toolOutput(id).Output)
		}
	}
	// The five children hold every slot: the next reply's spawns are refused.
	for _, id := range []string{"x0", "x1"} {
		if !refused(id) {
			t.Errorf("%s was not refused with 5 agents running: %s", id, env.toolOutput(id).Output)
		}
	}
}

// A spawn that fails for another reason (an unknown agent_type) gives back
// the slot it reserved in call order: that reply's later spawns were
// already answered, so the next reply's first spawn takes it, and the one
// after is refused (no slot leaked, none given back twice).
func TestSpawnSlotGivenBackByFailedSpawn(t *testing.T) {
	env, refused := spawnEight(t, 1)
	for i := range 8 {
		id := fmt.Sprintf("s%d", i)
		out := env.toolOutput(id)
		switch {
		case i == 1:
			if !out.IsError || refused(id) {
				t.Errorf("%s (unknown agent_type) = %q, want its own refusal", id, out.Output)
			}
		case i < 5:
			if out.IsError || agentIDFrom(out.Output) == "" {
				t.Errorf("%s, within the first 5 asked for, did not start: %s", id, out.Output)
			}
		case !refused(id):
			t.Errorf("%s, after the first 5, was not refused for the limit: %s", id, out.Output)
		}
	}
	if out := env.toolOutput("x0"); out.IsError {
		t.Errorf("x0 did not get the slot the failed spawn gave back: %s", out.Output)
	}
	if !refused("x1") {
		t.Errorf("x1 was not refused with 5 agents running: %s", env.toolOutput("x1").Output)
	}
}

// spawnEight runs a root whose first reply asks for eight spawn_agent
// calls s0…s7 (s<bad> with an unknown agent_type) and whose second asks
// for two more, x0 and x1, under agents.max_threads = 5; the children keep
// running, each holding its slot. refused tells a call refused for the
// limit with the collab surface's limit message.
func spawnEight(t *testing.T, bad int) (*testEnv, func(id string) bool) {
	const limit = 5
	spawn := func(id, role string) model.ToolCallRequest {
		return toolCall(id, "spawn_agent", map[string]any{"agent_type": role, "message": "work"})
	}
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			var cs []model.ToolCallRequest
			switch tn.rounds {
			case 0:
				for i := range 8 {
					role := "worker"
					if i == bad {
						role = "no_such_role"
					}
					cs = append(cs, spawn(fmt.Sprintf("s%d", i), role))
				}
			case 1:
				cs = append(cs, spawn("x0", "worker"), spawn("x1", "worker"))
			default:
				return text("spawned"), nil
			}
			return calls(cs...), nil
		},
		"worker": block,
	}, func(o *Options) { o.MaxThreads = limit })
	env.send("go")
	env.rootFinal(1)
	return env, func(id string) bool {
		out := env.toolOutput(id)
		return out.IsError && strings.Contains(out.Output, fmt.Sprintf("collab spawn failed: agent thread limit reached (max %d)", limit))
	}
}
