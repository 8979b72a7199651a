package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// firstUserText is a chat request's first user message (a sub-agent's
// prompt, the root's task).
func firstUserText(r modeltest.CapturedRequest) string {
	msgs := r.Messages()
	for _, m := range msgs {
		if m, _ := m.(map[string]any); m["role"] == "user" {
			return fmt.Sprint(m["content"])
		}
	}
	return ""
}

// TestExecStreamsEverySubagentActivityKind: under agents.surface=task,
// `grove exec --json=grove` carries seed 004's subagent_activity events on
// the root's thread, every SubagentEventType among them. Explore "alpha"
// streams reasoning (THOUGHT_CHUNK), lists a directory and completes;
// Explore "beta" never calls complete_task, so it gets the grace step
// (GRACE_PERIOD_START/END); Explore "gamma"'s model refuses its request
// (ERROR).
func TestExecStreamsEverySubagentActivityKind(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		role, _ := lastMessage(r)
		switch who := firstUserText(r); {
		case strings.Contains(who, "alpha:"):
			if role == "tool" {
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a2", Name: "complete_task", Arguments: `{"result":"two files"}`}}}
			}
			return modeltest.Reply{Reasoning: "look at the layout first", ToolCalls: []modeltest.ToolCall{{ID: "a1", Name: "list_dir", Arguments: `{"path":"."}`}}}
		case strings.Contains(who, "beta:"):
			return modeltest.Reply{Text: "I will not call the tool"}
		case strings.Contains(who, "gamma:"):
			return modeltest.Reply{Status: 400, Body: `{"error":{"message":"gamma's request is refused","type":"invalid_request_error"}}`}
		}
		if role == "tool" {
			return modeltest.Reply{Text: "explored"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{ID: "t1", Name: "Task", Arguments: `{"subagent_type":"Explore","prompt":"alpha: list the files","description":"alpha"}`},
			{ID: "t2", Name: "Task", Arguments: `{"subagent_type":"Explore","prompt":"beta: idle","description":"beta"}`},
			{ID: "t3", Name: "Task", Arguments: `{"subagent_type":"Explore","prompt":"gamma: fail","description":"gamma"}`},
		}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--json=grove", "-c", "agents.surface=task", "--cd", t.TempDir(), "-m", "test-model", "explore")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	var root string
	seen := map[string]map[string]any{} // event_type → the first event's payload
	for _, ev := range execEvents(t, out) {
		if ev["type"] == "thread_started" && root == "" {
			root = fmt.Sprint(ev["thread_id"])
		}
		if ev["type"] != "subagent_activity" {
			continue
		}
		if ev["thread_id"] != root {
			t.Errorf("activity on %v, want the root %s", ev["thread_id"], root)
		}
		a, _ := ev["subagent_activity"].(map[string]any)
		for _, k := range []string{"agent_id", "agent_type", "event_type", "data"} {
			if _, ok := a[k]; !ok {
				t.Errorf("subagent_activity without %s: %v", k, a)
			}
		}
		if k := fmt.Sprint(a["event_type"]); seen[k] == nil {
			seen[k] = a
		}
	}
	for _, k := range []protocol.SubagentEventType{
		protocol.ActivityStarted, protocol.ActivityCompleted, protocol.ActivityError,
		protocol.ActivityTurnStart, protocol.ActivityTurnComplete, protocol.ActivityToolCallStart, protocol.ActivityToolCallEnd,
		protocol.ActivityThoughtChunk, protocol.ActivityGracePeriodStart, protocol.ActivityGracePeriodEnd,
	} {
		if seen[string(k)] == nil {
			t.Errorf("no %s activity in the stream", k)
		}
	}
	if d, _ := seen["ERROR"]["data"].(map[string]any); !strings.Contains(fmt.Sprint(d["error"]), "gamma's request is refused") {
		t.Errorf("ERROR data %v", seen["ERROR"])
	}
	if d, _ := seen["THOUGHT_CHUNK"]["data"].(map[string]any); d["text"] == nil || !strings.Contains("look at the layout first", fmt.Sprint(d["text"])) {
		t.Errorf("THOUGHT_CHUNK data %v", seen["THOUGHT_CHUNK"])
	}
	if t.Failed() {
		t.Logf("stream:\n%s", out)
	}
}
