package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

const taskAgentID = protocol.ThreadID("agent-6f1c2d3e-0000-4000-8000-00000000abcd")

// activity is a SubagentActivity event on the root, its data as the
// engine builds it (typed values, not JSON).
func activity(typ protocol.SubagentEventType, data map[string]any) protocol.Event {
	return protocol.NewEvent(rootID, "", protocol.SubagentActivityMsg{Activity: protocol.SubagentActivityEvent{
		AgentID: taskAgentID, AgentType: "worker", EventType: typ, Data: data}})
}

func progressData(done, limit int) map[string]any {
	return map[string]any{"progress": protocol.SubagentProgress{TurnsCompleted: done, MaxTurns: limit, MaxSeconds: 600}}
}

// taskSession is a root that runs a synchronous Task: the worker's
// activity arrives on the root (seed 004 §5.2) while the call runs — a
// tool call, a grace turn after its turn limit — then the seed's result.
// mid is how many events lead to the moment the worker runs its tool.
func taskSession() (evs []protocol.Event, mid int) {
	args := `{"subagent_type":"worker","description":"add Farewell","prompt":"add Farewell to greet.go"}`
	w := child(taskAgentID, "worker", "", "add Farewell", 1, rootID)
	w.SpawnCallID = "t1"
	out := `{"agent_id":"` + string(taskAgentID) + `","duration_seconds":4.5,"result":"{\n  \"result\": \"Added Farewell to greet.go\"\n}","status":"goal","total_tokens":4012,"total_tool_use_count":2,"turns_used":4}`
	evs = []protocol.Event{
		status(rootID, protocol.Running(), 0),
		userMsg(rootID, "add a farewell"),
		toolBegin(rootID, "t1", "Task", args),
		started(w, 0),
		activity(protocol.ActivityStarted, map[string]any{"description": "add Farewell"}),
		status(taskAgentID, protocol.Running(), 0),
		activity(protocol.ActivityTurnStart, progressData(0, 4)),
		activity(protocol.ActivityToolCallStart, map[string]any{"tool_name": "apply_patch", "arguments": map[string]any{"input": "…"}}),
	}
	mid = len(evs)
	evs = append(evs,
		activity(protocol.ActivityToolCallEnd, map[string]any{"tool_name": "apply_patch", "success": true, "duration_ms": int64(40)}),
		activity(protocol.ActivityTurnComplete, progressData(1, 4)),
		activity(protocol.ActivityGracePeriodStart, map[string]any{"reason": "max_turns", "grace_seconds": 60}),
		activity(protocol.ActivityGracePeriodEnd, map[string]any{"reason": "max_turns"}),
		activity(protocol.ActivityCompleted, map[string]any{"duration_seconds": 4.5, "turns_used": 4}),
		status(taskAgentID, protocol.Completed("done", true), 0),
		toolEnd(rootID, "t1", "Task", args, out, taskAgentID),
		message(rootID, "The worker added Farewell."),
		status(rootID, protocol.Completed("The worker added Farewell.", true), 0),
	)
	for i := range evs {
		evs[i].Timestamp = t0.Add(time.Duration(i+1) * 500 * time.Millisecond)
		evs[i].Seq = uint64(i + 1)
	}
	return evs, mid
}

// A Task sub-agent's card shows its activity live (turn, the tool it
// runs, the grace turn), then how it ended; the resumed session, rebuilt
// from the rollouts (activity data read back as JSON), shows the same
// screens. Goldens at 80x24 and 120x40.
func TestGoldenTaskActivity(t *testing.T) {
	evs, mid := taskSession()
	var rootEvs, childEvs []protocol.Event
	for _, e := range evs {
		if e.ThreadID == taskAgentID {
			childEvs = append(childEvs, e)
		} else {
			rootEvs = append(rootEvs, e)
		}
	}
	root := rootInfo()
	root.Status, root.RolloutPath = protocol.Completed("The worker added Farewell.", true), writeRollout(t, rootEvs...)
	w := child(taskAgentID, "worker", "", "add Farewell", 1, rootID)
	w.SpawnCallID, w.Status, w.RolloutPath = "t1", protocol.Completed("done", true), writeRollout(t, childEvs...)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		live, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		live = feed(live, evs[:mid]...)
		s := screen(live)
		golden(t, "running_"+sizeName(size), s)
		for _, want := range []string{"(wor", "turn 1/4", "▸ apply_patch"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%v running: %q missing:\n%s", size, want, s)
			}
		}
		live = feed(live, evs[mid:mid+3]...)
		if s := screen(live); !strings.Contains(s, "⏳ grace turn: max_turns") || !strings.Contains(s, "last apply_patch ✓") {
			t.Fatalf("%v grace: \n%s", size, s)
		}
		live = feed(live, evs[mid+3:]...)
		s = screen(live)
		golden(t, "done_"+sizeName(size), s)
		for _, want := range []string{"→ goal · 4 turns · 4.0k tokens · 4.5s", `{"result":"Added Farewell to greet.go"}`} {
			if !strings.Contains(s, want) {
				t.Fatalf("%v done: %q missing:\n%s", size, want, s)
			}
		}
		resumed, _ := newTestModel(t, size[0], size[1], newFake(root, w))
		resumed = drive(resumed, resumed.scanResumed())
		if rs := screen(resumed); rs != s {
			t.Fatalf("%v: resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, s, rs)
		}
	}
}

// While it runs, a resumed session's Task card shows the agent and its
// activity as the live one did (the agent is known before the call is
// replayed).
func TestResumedRunningTaskCard(t *testing.T) {
	evs, mid := taskSession()
	evs = evs[:mid]
	var rootEvs, childEvs []protocol.Event
	for _, e := range evs {
		if e.ThreadID == taskAgentID {
			childEvs = append(childEvs, e)
		} else {
			rootEvs = append(rootEvs, e)
		}
	}
	root := rootInfo()
	root.Status, root.RolloutPath = protocol.Running(), writeRollout(t, rootEvs...)
	w := child(taskAgentID, "worker", "", "add Farewell", 1, rootID)
	w.SpawnCallID, w.Status, w.RolloutPath = "t1", protocol.Running(), writeRollout(t, childEvs...)
	live, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	live = feed(live, evs...)
	resumed, _ := newTestModel(t, 120, 40, newFake(root, w))
	resumed = drive(resumed, resumed.scanResumed())
	// The cards, not the tree: a session resumed while "running" is an
	// artificial state whose elapsed times start at the resume.
	if ls, rs := cardRows(screen(live)), cardRows(screen(resumed)); ls != rs || !strings.Contains(ls, "▸ apply_patch") {
		t.Fatalf("resumed card differs from live:\nlive:\n%s\nresumed:\n%s", ls, rs)
	}
}

// cardRows are a screen's card rows (from their left border on).
func cardRows(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, b := range []string{"╭", "│ │", "╰"} {
			if i := strings.Index(l, b); i >= 0 {
				out = append(out, l[i:])
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// A Task agent that fails: the card says so with the error on its own row
// while the call still runs, then the seed's error result.
func TestTaskCardError(t *testing.T) {
	evs, mid := taskSession()
	evs = append(evs[:mid:mid],
		activity(protocol.ActivityError, map[string]any{"error": "model stream failed: 502"}),
		status(taskAgentID, protocol.Errored("model stream failed: 502"), 0),
	)
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	m = feed(m, evs...)
	s := screen(m)
	if !strings.Contains(s, "✗ model stream failed: 502") || strings.Contains(s, "▸ apply_patch") {
		t.Fatalf("error not shown, or a tool still shown running:\n%s", s)
	}
	end := toolEnd(rootID, "t1", "Task", `{"subagent_type":"worker","description":"add Farewell"}`,
		`{"agent_id":"`+string(taskAgentID)+`","result":"model stream failed: 502","status":"error","turns_used":1}`, taskAgentID)
	end.Tool.IsError = true
	m = feed(m, end)
	s = screen(m)
	if !strings.Contains(s, "→ error · 1 turn") || !strings.Contains(s, "model stream failed: 502") {
		t.Fatalf("error result:\n%s", s)
	}
}
