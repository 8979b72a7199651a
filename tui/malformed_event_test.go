package tui

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// An event whose type needs a payload it lacks (a truncated rollout line,
// a peer's bad frame) is skipped: no nil dereference, and the events
// around it still apply.
func TestMalformedEventsAreSkipped(t *testing.T) {
	root := rootInfo()
	m, _ := newTestModel(t, 100, 30, newFake(root))
	m = feed(m, started(root, 0))
	var bad []protocol.Event
	for _, typ := range []protocol.EventType{
		protocol.EventThreadStarted, protocol.EventStatusChanged, protocol.EventToolCallBegin,
		protocol.EventToolCallEnd, protocol.EventToolProgress, protocol.EventExecOutputDelta,
		protocol.EventPlanUpdated, protocol.EventApprovalRequested, protocol.EventApprovalResolved,
		protocol.EventBackground, protocol.EventNoteUpdated, protocol.EventTokenUsage,
		protocol.EventInbox, "no_such_event",
	} {
		bad = append(bad, protocol.Event{Type: typ, ThreadID: root.ID})
	}
	m = feed(m, bad...)
	m = feed(m, message(root.ID, "still here"))
	if s := screen(m); !strings.Contains(s, "still here") {
		t.Fatalf("a message after malformed events is not shown:\n%s", s)
	}
	if len(m.sess.threads[root.ID].entries) != 1 {
		t.Fatalf("malformed events added entries: %d", len(m.sess.threads[root.ID].entries))
	}
}
