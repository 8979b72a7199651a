package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Codex's fork_context / fork_turns: the child starts on a copy of the
// parent's conversation (without the pending spawn call), closed by
// grove's notice; a full fork refuses role and model overrides with
// Codex's words (multi_agents/spawn.rs reject_full_fork_spawn_overrides).
func TestSpawnForkContext(t *testing.T) {
	var mu sync.Mutex
	var childSaw [][]protocol.Item
	args := map[string]any{}
	root := func(_ context.Context, tn turn) (model.Response, error) {
		if tn.prompt == "remember the codeword ALBATROSS" {
			return text("noted"), nil
		}
		if tn.rounds == 0 {
			return calls(toolCall("sp-"+tn.prompt, "spawn_agent", args)), nil
		}
		return text("spawned"), nil
	}
	child := func(_ context.Context, tn turn) (model.Response, error) {
		mu.Lock()
		childSaw = append(childSaw, tn.req.Items)
		mu.Unlock()
		return text("child done"), nil
	}
	env := newEnv(t, script{"root": root, "default": child}, nil)

	env.send("remember the codeword ALBATROSS")
	env.rootFinal(1)
	args = map[string]any{"message": "say the codeword", "fork_context": true, "task_name": "codeword_check"}
	env.send("now delegate")
	env.rootFinal(2)
	env.waitFor("child done", func(ev protocol.Event) bool { return ev.Type == protocol.EventMessage && ev.Message == "child done" })
	mu.Lock()
	saw := childSaw[0]
	mu.Unlock()
	var texts []string
	for _, it := range saw {
		texts = append(texts, it.Content)
		if it.Type == protocol.ItemFunctionCall && strings.HasPrefix(it.CallID, "sp-") {
			t.Fatalf("the child saw the pending spawn call: %+v", it)
		}
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "ALBATROSS") || !strings.Contains(joined, "You are now a sub-agent") || !strings.HasSuffix(joined, "say the codeword") {
		t.Fatalf("child's conversation:\n%s", joined)
	}
	if n := env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventNoteUpdated && ev.Note != nil && *ev.Note == "codeword_check"
	}); len(n) == 0 {
		t.Fatal("task_name did not become the agent's note")
	}

	args = map[string]any{"message": "x", "fork_turns": "all", "agent_type": "worker"}
	env.send("again")
	env.rootFinal(3)
	out := env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventToolCallEnd })
	last := out[len(out)-1].Tool
	if !last.IsError || !strings.Contains(last.Output, "Full-history forked agents inherit the parent agent type") {
		t.Fatalf("full fork with agent_type: %+v", last)
	}
}

func TestForkedHistoryLastTurns(t *testing.T) {
	h := []protocol.Item{
		protocol.UserMessage("one"), protocol.AssistantMessage("a1"),
		protocol.UserMessage("two"), protocol.FunctionCall("c1", "exec_command", "{}"), protocol.FunctionCallOutput("c1", "ok"),
		protocol.UserMessage("three"), {Type: protocol.ItemReasoning, Summary: "think"}, protocol.FunctionCall("c2", "spawn_agent", "{}"),
	}
	got := forkedHistory(h, 2)
	var names []string
	for _, it := range got {
		names = append(names, string(it.Type)+":"+it.Content+it.CallID)
	}
	want := "message:two,function_call:c1,function_call_output:c1,message:three,message:" + forkEnd
	if strings.Join(names, ",") != want {
		t.Fatalf("forked = %v", names)
	}
	if forkedHistory(h, 0) != nil {
		t.Fatal("fork_turns none copied history")
	}
}
