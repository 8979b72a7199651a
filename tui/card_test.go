package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// TestCardShowsWhatWaitReturned: a wait card keeps the status and message
// wait returned; the agent's later fate shows only as a badge.
func TestCardShowsWhatWaitReturned(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	waitArgs := `{"ids":["` + string(explorerID) + `"]}`
	m = feed(m,
		started(child(explorerID, "explorer", "", "find the parser", 1, rootID), 2*time.Second),
		status(explorerID, protocol.Running(), 3*time.Second),
		toolBegin(rootID, "w1", "wait", waitArgs),
		status(explorerID, protocol.Completed("Parser is in parse.go:42", true), 9*time.Second),
		toolEnd(rootID, "w1", "wait", waitArgs, `{"status":{"`+string(explorerID)+`":{"completed":"Parser is in parse.go:42"}},"timed_out":false}`, explorerID),
	)
	if s := screen(m); !strings.Contains(s, nick(m, explorerID)+" 0explor1 completed") || strings.Contains(s, "· now") {
		t.Fatalf("fresh wait card:\n%s", s)
	}
	// Later the explorer is sent more work and then closed.
	m = feed(m, status(explorerID, protocol.Running(), 12*time.Second), status(explorerID, protocol.Shutdown(), 14*time.Second))
	s := screen(m)
	if !strings.Contains(s, nick(m, explorerID)+" 0explor1 completed · now ■ closed") || !strings.Contains(s, "Parser is in parse.go:42") {
		t.Fatalf("the wait card rewrote what wait returned:\n%s", s)
	}
}

// TestClosedChildKeepsHowItEnded: closing a completed agent marks it
// closed without turning its ✓ into ■.
func TestClosedChildKeepsHowItEnded(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	m = feed(m,
		started(child(explorerID, "explorer", "", "find the parser", 1, rootID), 2*time.Second),
		status(explorerID, protocol.Completed("done", true), 9*time.Second),
		status(explorerID, protocol.Shutdown(), 10*time.Second),
	)
	tree := strings.Split(screen(m), "\n")[3]
	if !strings.Contains(tree, "✓ "+nick(m, explorerID)+" (explorer)") || !strings.Contains(tree, "0:07") {
		t.Fatalf("tree row %q", tree)
	}
	m.focusThread(explorerID)
	if title := strings.Split(screen(m), "\n")[1]; !strings.Contains(title, "(explorer) ✓ completed, closed") {
		t.Fatalf("title %q", title)
	}
}

// resumedScenario is a session reopened from its rollout: the engine
// reports every child closed, and the root's history has the calls.
func resumedScenario() *fakeBackend {
	root := rootInfo()
	ex := child(explorerID, "explorer", "", "find the date parser", 1, rootID)
	wk := child(workerID, "worker", "careful", "fix leap-year parsing", 1, rootID)
	ex.Status, wk.Status = protocol.Shutdown(), protocol.Shutdown()
	fb := newFake(root, ex, wk)
	spawn := func(call, typ string, id protocol.ThreadID) []protocol.Item {
		return []protocol.Item{
			protocol.FunctionCall(call, "spawn_agent", `{"agent_type":"`+typ+`","message":"go"}`),
			{Type: protocol.ItemFunctionCallOutput, CallID: call, Output: `{"agent_id":"` + string(id) + `","agent_type":"` + typ + `"}`},
		}
	}
	ids := `["` + string(explorerID) + `","` + string(workerID) + `"]`
	h := []protocol.Item{protocol.UserMessage("Fix the flaky date parser and add tests")}
	h = append(h, spawn("s1", "explorer", explorerID)...)
	h = append(h, spawn("s2", "worker", workerID)...)
	h = append(h,
		protocol.FunctionCall("w1", "wait", `{"ids":`+ids+`}`),
		protocol.Item{Type: protocol.ItemFunctionCallOutput, CallID: "w1", Output: `{"status":{"` + string(explorerID) + `":{"completed":"Parser is in pkg/when/parse.go:42."},"` + string(workerID) + `":{"errored":"tests still fail"}},"timed_out":false}`},
		protocol.FunctionCall("c1", "close_agent", `{"id":"`+string(explorerID)+`"}`),
		protocol.Item{Type: protocol.ItemFunctionCallOutput, CallID: "c1", Output: `{"status":{"completed":"Parser is in pkg/when/parse.go:42."}}`},
		protocol.AssistantMessage("The explorer found it; the worker's tests still fail."),
	)
	fb.history = map[protocol.ThreadID][]protocol.Item{rootID: h}
	return fb
}

func TestGoldenResumedSession(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		m, _ := newTestModel(t, size[0], size[1], resumedScenario())
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, sizeName(size), s)
		for _, bad := range []string{`{"`, "■ " + nick(m, explorerID), "■ careful", "0:00"} {
			if strings.Contains(s, bad) {
				t.Errorf("%v: resumed screen shows %q:\n%s", size, bad, s)
			}
		}
		for _, want := range []string{"(explorer)", "✗ careful (worker)", "close_agent"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: resumed screen lacks %q:\n%s", size, want, s)
			}
		}
	}
}

// TestWaitSaysWhyTheParentWoke: a finished wait names what woke it; an
// interrupted agent being waited on is explained where the parent waits.
func TestWaitSaysWhyTheParentWoke(t *testing.T) {
	m, _ := newTestModel(t, 120, 30, newFake(rootInfo()))
	args := `{"ids":["` + string(explorerID) + `","` + string(workerID) + `"]}`
	m = feed(m,
		started(child(explorerID, "explorer", "", "", 1, rootID), 2*time.Second),
		started(child(workerID, "worker", "", "", 1, rootID), 2*time.Second),
		status(explorerID, protocol.Running(), 3*time.Second),
		status(workerID, protocol.Running(), 3*time.Second),
		toolBegin(rootID, "w1", "wait", args),
		status(workerID, protocol.Interrupted(), 5*time.Second),
	)
	if s := screen(m); !strings.Contains(s, nick(m, workerID)+" (worker) was interrupted") || strings.Contains(s, "still waiting") {
		t.Fatalf("no hint about the interrupted agent:\n%s", s)
	}
	m = feed(m,
		status(explorerID, protocol.Completed("found it", true), 9*time.Second),
		toolEnd(rootID, "w1", "wait", args, `{"status":{"`+string(explorerID)+`":{"completed":"found it"}},"timed_out":false}`, explorerID, workerID),
	)
	if s := screen(m); !strings.Contains(s, "wait → woke: "+nick(m, explorerID)+" completed") {
		t.Fatalf("wait does not say what woke it:\n%s", s)
	}
}

// A card of a running agent is rendered once per spinner frame (renders
// between ticks reuse it) and again when what it shows changes.
func TestLiveCardCachedPerFrame(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	args := `{"agent_type":"explorer","message":"look"}`
	note := ev(protocol.EventNoteUpdated, explorerID, 4*time.Second)
	text := "reading the parser"
	note.Note = &text
	m = feed(m,
		started(child(explorerID, "explorer", "", "", 1, rootID), 2*time.Second),
		toolBegin(rootID, "s1", "spawn_agent", args),
		toolEnd(rootID, "s1", "spawn_agent", args, `{"agent_id":"`+string(explorerID)+`"}`, explorerID),
		status(explorerID, protocol.Running(), 3*time.Second),
	)
	root := m.sess.threads[rootID]
	card := root.entries[len(root.entries)-1]
	first := m.r.lines(m.sess, card, 100)
	if again := m.r.lines(m.sess, card, 100); &again[0] != &first[0] {
		t.Fatal("a live card was rendered twice in one frame")
	}
	m.r.frame++
	if next := m.r.lines(m.sess, card, 100); &next[0] == &first[0] {
		t.Fatal("a live card was not rendered for a new frame")
	}
	m = feed(m, note)
	if got := ansiStrip(strings.Join(m.r.lines(m.sess, card, 100), "\n")); !strings.Contains(got, text) {
		t.Fatalf("the card does not show the new note:\n%s", got)
	}
}
