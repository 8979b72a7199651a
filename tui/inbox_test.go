package tui

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

func TestInboxNotificationsShowInParentTranscript(t *testing.T) {
	s := newSession()
	root := protocol.ThreadID("01a2090d-0000-7000-8000-000000000001")
	kid := protocol.ThreadID("01a2090d-0000-7000-8000-0000000000aa")
	s.apply(protocol.Event{Type: protocol.EventThreadStarted, ThreadID: root, Thread: &protocol.ThreadInfo{ID: root}})
	for _, n := range []protocol.InboxNotification{
		{Seq: 1, From: kid, Kind: protocol.NotifyQuestion, Text: "may I?"},
		{Seq: 2, From: kid, Kind: protocol.NotifyCompleted, Text: "done it"},
	} {
		n := n
		s.apply(protocol.Event{Type: protocol.EventInbox, ThreadID: root, Inbox: &protocol.InboxChange{Notification: &n}})
	}
	s.apply(protocol.Event{Type: protocol.EventInbox, ThreadID: root, Inbox: &protocol.InboxChange{Read: []int{1, 2}}})
	tv := s.threads[root]
	if len(tv.entries) != 2 {
		t.Fatalf("entries: %d", len(tv.entries))
	}
	if tv.entries[0].kind != entryWarning || !strings.Contains(tv.entries[0].text, "question from sub-agent "+kid.Short()+": may I?") {
		t.Errorf("question entry: %+v", tv.entries[0])
	}
	if tv.entries[1].kind != entryInfo || !strings.Contains(tv.entries[1].text, "completed: done it") {
		t.Errorf("completion entry: %+v", tv.entries[1])
	}
}
