package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// answered is the engine's approval_resolved for the request event ask:
// it carries the whole request, as core/engine/approval.go publishes it.
func answered(ask protocol.Event, d protocol.ReviewDecision) protocol.Event {
	e := ev(protocol.EventApprovalResolved, ask.ThreadID, 4*time.Second)
	req := *ask.Approval
	e.Approval, e.Decision = &req, d
	return e
}

// approvalTurn is one turn whose command needs the user's approval, split
// where the user answers: before (up to the request) and after (the
// engine's resolution, the output, the reply), stamped from step on.
func approvalTurn(n, cmd string, step int) (before, after []protocol.Event, ask protocol.Event) {
	call := "c" + n
	ask = escalationApproval("ap"+n, 0, cmd)
	ask.Approval.CallID = call
	before = []protocol.Event{
		status(rootID, protocol.Running(), 0),
		userMsg(rootID, "run "+cmd),
		toolBegin(rootID, call, "exec_command", `{"cmd":"`+cmd+`"}`),
		ask,
	}
	after = []protocol.Event{
		answered(ask, protocol.DecisionApproved),
		execEnd(rootID, call, cmd, 0, false, "output of "+cmd),
		message(rootID, "ran "+cmd),
		status(rootID, protocol.Completed("ran "+cmd, true), 0),
		ev(protocol.EventTurnCompleted, rootID, 0),
	}
	for i, evs := range [][]protocol.Event{before, after} {
		for j := range evs {
			k := step + i*len(before) + j
			evs[j].Timestamp, evs[j].Seq = t0.Add(time.Duration(k)*time.Second), uint64(k)
		}
	}
	return before, after, before[3]
}

// approveByKeys answers the shown escalation as a person does: tab to the
// modal, y, and enter once the confirmation listens.
func approveByKeys(t *testing.T, m Model, c *clock) Model {
	t.Helper()
	c.t = c.t.Add(time.Minute)
	m, _ = press(m, "tab")
	m, _ = press(m, "y")
	c.t = c.t.Add(approvalGrace)
	m, cmd := press(m, "enter")
	runCmd(cmd)
	if m.appr.current() != nil {
		t.Fatalf("the escalation is still asked:\n%s", screen(m))
	}
	return m
}

// traceOrder checks, reading the screen top to bottom, that the approval's
// trace comes once, right before the call's card, and before its output
// (Codex's approval history cell precedes its exec cell).
func traceOrder(t *testing.T, label, s, cmd string) {
	t.Helper()
	trace := "✔ You approved outside the sandbox: " + cmd // "(this time)" may wrap
	if strings.Count(s, trace) != 1 {
		t.Fatalf("%s: want one %q:\n%s", label, trace, s)
	}
	row := func(sub string) int {
		for i, l := range strings.Split(s, "\n") {
			if strings.Contains(l, sub) {
				return i
			}
		}
		t.Fatalf("%s: no %q on screen:\n%s", label, sub, s)
		return -1
	}
	tr, card, out := row(trace), row("exec_command $ "+cmd), len(s) // no output yet: after all
	if strings.Contains(s, "output of "+cmd) {
		out = row("output of " + cmd)
	}
	if !(tr < card && card < out) {
		t.Fatalf("%s: trace at row %d, card at %d, output at %d; want the trace first:\n%s", label, tr, card, out, s)
	}
}

// TestApprovalTraceBeforeOutput: the trace of an approved escalation
// comes right after the request, before the command's output, live; the
// same session resumed shows the same screen; and one turn after the
// resume (approved live again) the resumed screen still equals the live.
func TestApprovalTraceBeforeOutput(t *testing.T) {
	before1, after1, _ := approvalTurn("1", "touch escalated", 1)
	before2, after2, _ := approvalTurn("2", "touch again", 100)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		live, lc := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		live = feed(live, before1...)
		live = approveByKeys(t, live, lc)
		traceOrder(t, "live, answered", screen(live), "touch escalated")
		live = feed(live, after1...)
		traceOrder(t, "live, ran", screen(live), "touch escalated")

		root := rootInfo()
		root.Status = protocol.Completed("ran touch escalated", true)
		root.RolloutPath = writeRollout(t, append(append([]protocol.Event(nil), before1...), after1...)...)
		resumed, rc := newTestModel(t, size[0], size[1], newFake(root))
		resumed = drive(resumed, resumed.scanResumed())
		if ls, rs := screen(live), screen(resumed); ls != rs {
			t.Fatalf("%v: resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, ls, rs)
		}

		for _, p := range []struct {
			m *Model
			c *clock
		}{{&live, lc}, {&resumed, rc}} {
			*p.m = feed(*p.m, before2...)
			*p.m = approveByKeys(t, *p.m, p.c)
			*p.m = feed(*p.m, after2...)
		}
		traceOrder(t, "a turn after the resume", screen(resumed), "touch again")
		if ls, rs := screen(live), screen(resumed); ls != rs {
			t.Fatalf("%v: a turn after the resume, resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, ls, rs)
		}
	}
}

// TestApprovalTraceCancelledIsNotADenial: a request still waiting when its
// turn is interrupted resolves as cancelled; the transcript says it was
// not answered, never "You denied … and stopped the turn", live, resumed,
// and one turn after the resume. The user's own esc still says denied.
func TestApprovalTraceCancelledIsNotADenial(t *testing.T) {
	before1, after1, ask1 := approvalTurn("1", "touch escalated", 1)
	cancelled := answered(ask1, protocol.DecisionAbort)
	cancelled.Resolution = protocol.ResolvedCancelled
	cancelled.Timestamp, cancelled.Seq = after1[0].Timestamp, after1[0].Seq
	end := execEnd(rootID, "c1", "touch escalated", -1, true, interruptedOutput)
	end.Timestamp, end.Seq = after1[1].Timestamp, after1[1].Seq
	stop := status(rootID, protocol.Interrupted(), 0)
	stop.Timestamp, stop.Seq = after1[3].Timestamp, after1[3].Seq
	after1 = []protocol.Event{cancelled, end, stop, after1[4]}
	before2, after2, _ := approvalTurn("2", "touch again", 100)
	notAnswered := "· Not answered: touch escalated"
	check := func(label, s string) {
		t.Helper()
		if strings.Contains(s, "You denied") || strings.Count(s, notAnswered) != 1 {
			t.Fatalf("%s: want one %q and no denial:\n%s", label, notAnswered, s)
		}
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		live, lc := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		live = feed(live, before1...)
		live = feed(live, after1...)
		check("live", screen(live))
		if live.appr.current() != nil {
			t.Fatalf("the cancelled request is still asked:\n%s", screen(live))
		}

		root := rootInfo()
		root.Status = protocol.Interrupted()
		root.RolloutPath = writeRollout(t, append(append([]protocol.Event(nil), before1...), after1...)...)
		resumed, rc := newTestModel(t, size[0], size[1], newFake(root))
		resumed = drive(resumed, resumed.scanResumed())
		check("resumed", screen(resumed))
		if ls, rs := screen(live), screen(resumed); ls != rs {
			t.Fatalf("%v: resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, ls, rs)
		}

		for _, p := range []struct {
			m *Model
			c *clock
		}{{&live, lc}, {&resumed, rc}} {
			*p.m = feed(*p.m, before2...)
			*p.m = approveByKeys(t, *p.m, p.c)
			*p.m = feed(*p.m, after2...)
		}
		check("a turn after the resume", screen(resumed))
		if ls, rs := screen(live), screen(resumed); ls != rs {
			t.Fatalf("%v: a turn after the resume, resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, ls, rs)
		}
	}
}

// TestApprovalTraceEscIsADenial: the user's esc is a denial that stops
// the turn, and the engine's answered resolution does not change that.
func TestApprovalTraceEscIsADenial(t *testing.T) {
	before, _, ask := approvalTurn("1", "touch escalated", 1)
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 80, 24, fb)
	m = feed(m, before...)
	c.t = c.t.Add(time.Minute)
	m, _ = press(m, "tab")
	m, cmd := press(m, "esc")
	runCmd(cmd)
	if ops := approvalOps(fb); len(ops) != 1 || ops[0].Decision != protocol.DecisionAbort {
		t.Fatalf("ops %+v, want one abort", ops)
	}
	m = feed(m, answered(ask, protocol.DecisionAbort))
	if s := screen(m); strings.Count(s, "✗ You denied: touch escalated and stopped") != 1 || strings.Contains(s, "Not answered") {
		t.Fatalf("want the denial once:\n%s", s)
	}
}
