package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// execEnd is the end of an exec_command call as the engine reports it.
func execEnd(id protocol.ThreadID, call, cmd string, code int, isErr bool, out string) protocol.Event {
	e := toolEnd(id, call, "exec_command", `{"cmd":"`+cmd+`"}`, out)
	e.Tool.ExitCode, e.Tool.IsError = &code, isErr
	if code < 0 {
		e.Tool.ExitCode = nil
	}
	return e
}

func resolved(id protocol.ThreadID, call string, d protocol.ReviewDecision) protocol.Event {
	e := ev(protocol.EventApprovalResolved, id, 4*time.Second)
	e.Approval = &protocol.ApprovalRequest{ID: "ap-" + call, ThreadID: id, CallID: call, Kind: protocol.ApprovalExec}
	e.Decision = d
	return e
}

// marksScenario: a command that fails with exit 3, one the user denied,
// one an interrupt cut off and one that succeeded.
func marksScenario() []protocol.Event {
	return []protocol.Event{
		status(rootID, protocol.Running(), time.Second),
		userMsg(rootID, "run the checks"),
		toolBegin(rootID, "c1", "exec_command", `{"cmd":"make check"}`),
		execEnd(rootID, "c1", "make check", 3, false, "Exit code: 3\nWall time: 0.4 seconds\nOutput:\n"+strings.Repeat("compiling…\n", 6)+"FAIL: 2 tests failed\nmake: *** [check] Error 3"),
		toolBegin(rootID, "c2", "exec_command", `{"cmd":"rm -rf build"}`),
		resolved(rootID, "c2", protocol.DecisionDenied),
		execEnd(rootID, "c2", "rm -rf build", -1, true, "command rejected by user"),
		toolBegin(rootID, "c3", "exec_command", `{"cmd":"go test ./..."}`),
		execEnd(rootID, "c3", "go test ./...", -1, true, "aborted: the turn was interrupted"),
		toolBegin(rootID, "c4", "exec_command", `{"cmd":"git status"}`),
		execEnd(rootID, "c4", "git status", 0, false, "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nnothing to commit"),
		status(rootID, protocol.Interrupted(), 6*time.Second),
	}
}

func TestToolMarksFollowTheOutcome(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	m = feed(m, marksScenario()...)
	s := screen(m)
	for _, want := range []string{"✗ exec_command exit 3 $ make check", "⊘ exec_command denied $ rm -rf build", "‖ exec_command interrupted $ go test", "✓ exec_command $ git status"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// A collapsed command shows its tail: the error, not the compile lines.
	if !strings.Contains(s, "make: *** [check] Error 3") || !strings.Contains(s, "earlier lines") {
		t.Errorf("the failing command's tail is not shown:\n%s", s)
	}
	if strings.Count(s, "✓") != 1 {
		t.Errorf("a failure is marked as a success:\n%s", s)
	}
}

// TestRunningCallStopsWithItsTurn: a call that never got its end (the
// turn was interrupted) stops spinning and says so.
func TestRunningCallStopsWithItsTurn(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = feed(m, status(rootID, protocol.Running(), time.Second), toolBegin(rootID, "c1", "exec_command", `{"cmd":"sleep 100"}`),
		status(rootID, protocol.Interrupted(), 2*time.Second))
	if s := screen(m); !strings.Contains(s, "‖ exec_command interrupted $ sleep 100") {
		t.Fatalf("%s", s)
	}
}

func TestGoldenFailedAndDenied(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, marksScenario()...)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "marks_"+sizeName(size), s)
	}
}

// TestInterruptingFlashEndsWithTheTurn: "interrupting…" does not outlive
// the turn it was about.
func TestInterruptingFlashEndsWithTheTurn(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = feed(m, status(rootID, protocol.Running(), time.Second))
	m, _ = press(m, "ctrl+c")
	if !strings.Contains(screen(m), "interrupting") {
		t.Fatalf("no flash:\n%s", screen(m))
	}
	m = feed(m, status(rootID, protocol.Interrupted(), 2*time.Second))
	if strings.Contains(screen(m), "interrupting") {
		t.Fatalf("stale flash:\n%s", screen(m))
	}
}

func pressAlt(m Model, k string) Model {
	code := tea.KeyUp
	if k == "down" {
		code = tea.KeyDown
	}
	mm, _ := m.Update(tea.KeyPressMsg{Code: code, Mod: tea.ModAlt})
	return mm.(Model)
}

// TestCtrlOExpandsAnyCall: alt+↑ highlights older calls, ctrl+o expands
// the highlighted one (not just the last), esc drops the highlight.
func TestCtrlOExpandsAnyCall(t *testing.T) {
	m, _ := newTestModel(t, 100, 40, newFake(rootInfo()))
	m = feed(m, marksScenario()...)
	if strings.Contains(screen(m), "compiling…\n") && strings.Count(screen(m), "compiling…") > 2 {
		t.Fatal("expanded before ctrl+o")
	}
	for range 4 {
		m = pressAlt(m, "up") // git status → go test → rm → make check
	}
	root := m.sess.threads[rootID]
	if e := selectedTool(root); e == nil || !strings.Contains(e.tool.Arguments, "make check") {
		t.Fatalf("highlight on %+v", e)
	}
	m, _ = press(m, "ctrl+o")
	if s := screen(m); strings.Count(s, "compiling…") != 6 || strings.Contains(s, "earlier lines") {
		t.Fatalf("the highlighted call is not expanded:\n%s", s)
	}
	m, _ = press(m, "esc")
	if selectedTool(root) != nil {
		t.Fatal("esc kept the highlight")
	}
}

// TestSearchFindsHiddenOutput: a match in the part of a call's output a
// collapsed call does not show is found, shown, and collapsed again when
// the search closes.
func TestSearchFindsHiddenOutput(t *testing.T) {
	m, _ := newTestModel(t, 100, 40, newFake(rootInfo()))
	out := "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nneedle-in-the-head\n" + strings.Repeat("noise\n", 20) + "tail line"
	m = feed(m, status(rootID, protocol.Running(), time.Second), toolBegin(rootID, "c1", "exec_command", `{"cmd":"ls"}`),
		execEnd(rootID, "c1", "ls", 0, false, out), status(rootID, protocol.Completed("", false), 2*time.Second))
	if strings.Contains(screen(m), "needle") {
		t.Fatal("the head shows while collapsed")
	}
	m, _ = press(m, "ctrl+f")
	m = typeText(m, "needle")
	if s := screen(m); !strings.Contains(s, "needle-in-the-head") || !strings.Contains(s, "1/1") {
		t.Fatalf("hidden output not found:\n%s", s)
	}
	m, _ = press(m, "esc")
	if e := m.sess.threads[rootID].entries[0]; !e.collapsed {
		t.Fatal("left expanded after the search")
	}
}

// TestHomeEndMoveInADraft: with a draft, home and end move the cursor
// (they scroll the transcript only when the composer is empty).
func TestHomeEndMoveInADraft(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = typeText(m, "abc")
	mm, _ := m.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	m = typeText(mm.(Model), "X")
	mm, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	m = typeText(mm.(Model), "Z")
	if v := m.composer.Value(); v != "XabcZ" {
		t.Fatalf("composer %q", v)
	}
}

// TestHistoryRecallsAPasteAsAChip: ↑ brings back a large sent paste as a
// chip, and sending it again sends the whole text.
func TestHistoryRecallsAPasteAsAChip(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 80, 24, fb)
	big := strings.Repeat("line of a log\n", 40)
	mm, _ := m.Update(tea.PasteMsg{Content: big})
	m, cmd := press(mm.(Model), "enter")
	runCmd(cmd)
	m, _ = press(m, "up")
	if v := m.composer.Value(); !strings.HasPrefix(v, "[pasted 40 lines") {
		t.Fatalf("recalled as %q", v[:min(len(v), 60)])
	}
	m, cmd = press(m, "enter")
	runCmd(cmd)
	var sent []string
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpUserTurn {
			sent = append(sent, op.Text)
		}
	}
	if len(sent) != 2 || sent[1] != sent[0] || !strings.Contains(sent[1], "line of a log") {
		t.Fatalf("sent %d: %q", len(sent), sent)
	}
}
