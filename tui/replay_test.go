package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// scriptedSession is a session as the engine publishes it: a plan, a
// spawned explorer (its own events, then closed), a command failing with
// exit 3, a command the user denied, a patch and token usage on both
// threads. Events get increasing times and sequence numbers.
func scriptedSession() []protocol.Event {
	plan := ev(protocol.EventPlanUpdated, rootID, 0)
	plan.Plan = &protocol.Plan{Explanation: "fix the leap-year bug", Steps: []protocol.PlanStep{
		{Step: "find the parser", Status: "completed"}, {Step: "fix it", Status: "in_progress"}, {Step: "run the tests", Status: "pending"}}}
	ask := execApproval("ap-c2", 0, "rm -rf build")
	ask.Approval.CallID = "c2"
	usage := func(id protocol.ThreadID, total int64) protocol.Event {
		e := ev(protocol.EventTokenUsage, id, 0)
		e.TotalUsage = &protocol.TokenUsage{InputTokens: total - 300, OutputTokens: 300, TotalTokens: total}
		e.Usage = &protocol.TokenUsage{InputTokens: 900, OutputTokens: 100, TotalTokens: 1000}
		return e
	}
	ex := child(explorerID, "explorer", "", "find the date parser", 1, rootID)
	ex.Status = protocol.PendingInit()
	closeBegin := toolBegin(rootID, "k1", "close_agent", `{"id":"`+string(explorerID)+`"}`)
	closeEnd := toolEnd(rootID, "k1", "close_agent", `{"id":"`+string(explorerID)+`"}`, `{"status":{"completed":"parse.go:42"}}`, explorerID)
	patchArgs := `{"input":"*** Begin Patch\n*** Update File: pkg/when/parse.go\n@@\n-\tif leap {\n+\tif isLeap(y) {\n*** End Patch"}`
	evs := []protocol.Event{
		status(rootID, protocol.Running(), 0),
		userMsg(rootID, "Fix the flaky date parser"),
		plan,
		toolBegin(rootID, "s1", "spawn_agent", `{"agent_type":"explorer","message":"find the parser"}`),
		started(ex, 0),
		status(explorerID, protocol.Running(), 0),
		userMsg(explorerID, "find the parser"),
		toolEnd(rootID, "s1", "spawn_agent", `{"agent_type":"explorer"}`, `{"agent_id":"`+string(explorerID)+`"}`, explorerID),
		toolBegin(explorerID, "g1", "grep_files", `{"pattern":"func Parse"}`),
		toolEnd(explorerID, "g1", "grep_files", `{"pattern":"func Parse"}`, "pkg/when/parse.go:42"),
		message(explorerID, "The parser is in pkg/when/parse.go:42."),
		usage(explorerID, 4100),
		status(explorerID, protocol.Completed("The parser is in pkg/when/parse.go:42.", true), 0),
		toolBegin(rootID, "c1", "exec_command", `{"cmd":"make check"}`),
		execEnd(rootID, "c1", "make check", 3, false, "Exit code: 3\nWall time: 0.4 seconds\nOutput:\nFAIL: TestLeap\nmake: *** [check] Error 3"),
		toolBegin(rootID, "c2", "exec_command", `{"cmd":"rm -rf build"}`),
		ask,
		answered(ask, protocol.DecisionDenied),
		execEnd(rootID, "c2", "rm -rf build", -1, true, "command rejected by user"),
		toolBegin(rootID, "p1", "apply_patch", patchArgs),
		toolEnd(rootID, "p1", "apply_patch", patchArgs, "Success. Updated the following files:\nM pkg/when/parse.go"),
		closeBegin,
		status(explorerID, protocol.Shutdown(), 0),
		ev(protocol.EventThreadClosed, explorerID, 0),
		closeEnd,
		message(rootID, "Fixed the leap-year check; `make check` still fails on TestLeap."),
		usage(rootID, 33200),
		status(rootID, protocol.Completed("Fixed the leap-year check.", true), 0),
		ev(protocol.EventTurnCompleted, rootID, 0),
	}
	for i := range evs {
		evs[i].Timestamp = t0.Add(time.Duration(i+1) * 500 * time.Millisecond)
		evs[i].Seq = uint64(i + 1)
	}
	return evs
}

// TestResumedScreenEqualsLive: the screens of a session watched live and
// of the same session resumed from its rollouts are the same, at 80x24 and
// 120x40, for the root and for the sub-agent.
func TestResumedScreenEqualsLive(t *testing.T) {
	evs := scriptedSession()
	var rootEvs, exEvs []protocol.Event
	for _, e := range evs {
		if e.ThreadID == explorerID {
			exEvs = append(exEvs, e)
		} else {
			rootEvs = append(rootEvs, e)
		}
	}
	// Each quit recorded the root's shutdown; each resume (twice, the
	// second one under way) recorded its start again, as it ended.
	ended := protocol.Completed("Fixed the leap-year check.", true)
	reopened := rootInfo()
	reopened.Status = ended
	at := evs[len(evs)-1].Timestamp
	for range 2 {
		for _, e := range []protocol.Event{status(rootID, protocol.Shutdown(), 0), ev(protocol.EventThreadClosed, rootID, 0), started(reopened, 0), status(rootID, ended, 0)} {
			at = at.Add(time.Minute)
			e.Timestamp = at
			rootEvs = append(rootEvs, e)
		}
	}
	root := rootInfo()
	root.Status, root.RolloutPath = ended, writeRollout(t, rootEvs...)
	ex := child(explorerID, "explorer", "", "find the date parser", 1, rootID)
	ex.Status, ex.RolloutPath = protocol.Shutdown(), writeRollout(t, exEvs...)

	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		live, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		live = feed(live, evs...)
		resumed, _ := newTestModel(t, size[0], size[1], newFake(root, ex))
		resumed = drive(resumed, resumed.scanResumed())
		for _, focus := range []protocol.ThreadID{rootID, explorerID} {
			live.focusThread(focus)
			resumed.focusThread(focus)
			ls, rs := screen(live), screen(resumed)
			if ls != rs {
				t.Fatalf("%v %s: resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, focus.Short(), ls, rs)
			}
		}
		resumed.focusThread(rootID)
		s := screen(resumed)
		golden(t, "resumed_"+sizeName(size), s)
		if size[1] == 40 {
			for _, want := range []string{"✗ exec_command exit 3", "⊘ exec_command denied", "✗ You denied: rm -rf build", "□ run the tests", "M pkg/when/parse.go +1 -1", "+    if isLeap(y) {", "explorer", "root 33.2k · all 37.3k tok"} {
				if !strings.Contains(s, want) {
					t.Errorf("resumed screen lacks %q:\n%s", want, s)
				}
			}
		}
	}
}

// TestReplayDoesNotDoubleLiveEvents: events the live stream delivers that
// the rollout replay already applied are not shown twice; newer ones are.
func TestReplayDoesNotDoubleLiveEvents(t *testing.T) {
	evs := []protocol.Event{status(rootID, protocol.Running(), time.Second), userMsg(rootID, "hello"), message(rootID, "hi there")}
	root := rootInfo()
	root.RolloutPath = writeRollout(t, evs...)
	m, _ := newTestModel(t, 80, 24, newFake(root))
	m = feed(m, evs[1:]...) // delivered again by the subscription
	later := message(rootID, "a newer reply")
	later.Timestamp = t0.Add(time.Minute)
	m = feed(m, later)
	s := screen(m)
	if strings.Count(s, "hi there") != 1 || strings.Count(s, "hello") != 1 || !strings.Contains(s, "a newer reply") {
		t.Fatalf("%s", s)
	}
}
