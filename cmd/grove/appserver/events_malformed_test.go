package appserver

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestTranslateDropsEventsWithoutTheirPayload: an event that lacks the
// payload its type needs (a peer's bad frame, a truncated rollout line) is
// dropped; it used to be dereferenced and crash the server.
func TestTranslateDropsEventsWithoutTheirPayload(t *testing.T) {
	s := &Server{threads: map[protocol.ThreadID]*thread{}, approvals: map[int64]*pendingApproval{}}
	sess := &session{root: "r"}
	info := protocol.ThreadInfo{ID: "r", Status: protocol.Running()}
	if out := s.translate(sess, protocol.NewEvent("r", "", protocol.ThreadStartedMsg{Thread: info})); len(out) != 1 {
		t.Fatalf("thread_started: %d messages, want 1", len(out))
	}
	for _, typ := range []protocol.EventType{
		protocol.EventThreadStarted, protocol.EventStatusChanged, protocol.EventToolCallBegin,
		protocol.EventToolCallEnd, protocol.EventExecOutputDelta, protocol.EventPlanUpdated,
		protocol.EventApprovalRequested, protocol.EventApprovalResolved, protocol.EventNoteUpdated,
		protocol.EventTokenUsage, protocol.EventBackground, "no_such_event",
	} {
		if out := s.translate(sess, protocol.Event{Type: typ, ThreadID: "r"}); len(out) != 0 {
			t.Errorf("%s without payload: sent %d messages", typ, len(out))
		}
	}
	// The thread still works after the bad events.
	st := protocol.Completed("done", true)
	if out := s.translate(sess, protocol.NewEvent("r", "", protocol.StatusChangedMsg{Status: st})); len(out) != 1 || s.threads["r"].status.Kind != protocol.StatusCompleted {
		t.Errorf("status_changed after bad events: %d messages, status %v", len(out), s.threads["r"].status)
	}
}
