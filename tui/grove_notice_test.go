package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// TestResumedGroveNoticeIsNotTheUsers: the crash-recovery notice grove
// gave the model is shown as grove's, not as a message the user typed.
func TestResumedGroveNoticeIsNotTheUsers(t *testing.T) {
	hv := newThreadView(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot})
	newSession().loadHistory(hv, []protocol.Item{
		protocol.UserMessage("fix the parser"),
		protocol.GroveNotice("[grove] Your previous turn was interrupted"),
	})
	if len(hv.entries) != 2 || hv.entries[0].kind != entryUser {
		t.Fatalf("entries %+v", hv.entries)
	}
	if e := hv.entries[1]; e.kind == entryUser || !strings.HasPrefix(e.text, "grove: ") {
		t.Fatalf("grove notice shown as %+v", e)
	}
}

// TestInterruptedReplyIsMarked: a reply cut off by Ctrl+C keeps its text
// and says it was interrupted, live and when resumed.
func TestInterruptedReplyIsMarked(t *testing.T) {
	s := newSession()
	s.apply(started(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot, StartedAt: t0}, 0))
	d := ev(protocol.EventMessageDelta, rootID, time.Second)
	d.Delta = "The parser lives in"
	s.apply(d)
	m := ev(protocol.EventMessage, rootID, 2*time.Second)
	m.Message, m.Interrupted = "The parser lives in", true
	tv := s.apply(m)
	if len(tv.entries) != 1 || tv.entries[0].text != "The parser lives in"+interruptedMark || !tv.entries[0].final {
		t.Fatalf("live entries %+v", tv.entries)
	}
	it := protocol.AssistantMessage("The parser lives in")
	it.Interrupted = true
	hv := newThreadView(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot})
	// The notice the interrupt left for the model (agents.interrupt_message)
	// adds no line: the reply's mark already says it.
	newSession().loadHistory(hv, []protocol.Item{it, protocol.TurnAbortedNotice("The user interrupted the previous turn on purpose.")})
	if len(hv.entries) != 1 || !strings.HasSuffix(hv.entries[0].text, interruptedMark) {
		t.Fatalf("resumed entries %+v", hv.entries)
	}
}
