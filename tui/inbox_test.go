package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func inboxEv(id protocol.ThreadID, ch protocol.InboxChange) protocol.Event {
	e := ev(protocol.EventInbox, id, 4*time.Second)
	e.Inbox = &ch
	return e
}

// TestTreeShowsUnreadInboxCount: the tree marks an agent with unread
// notifications from its sub-agents (inbox surface), and the mark goes
// when check_inbox reads them.
func TestTreeShowsUnreadInboxCount(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	w := child(workerID, "worker", "", "", 1, rootID)
	m = feed(m, started(w, 2*time.Second),
		inboxEv(rootID, protocol.InboxChange{Notification: &protocol.InboxNotification{Seq: 1, From: workerID, Kind: protocol.NotifyMessage, Text: "halfway"}}),
		inboxEv(rootID, protocol.InboxChange{Notification: &protocol.InboxNotification{Seq: 2, From: workerID, Kind: protocol.NotifyQuestion, Text: "which file?"}}))
	if s := screen(m); !strings.Contains(s, "root ✉2") {
		t.Fatalf("no unread count on the root:\n%s", s)
	}
	m = feed(m, inboxEv(rootID, protocol.InboxChange{Read: []int{1, 2}}))
	if s := screen(m); strings.Contains(s, "root ✉") {
		t.Fatalf("unread count left after the inbox was read:\n%s", s)
	}
}
