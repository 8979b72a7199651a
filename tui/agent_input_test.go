package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// A message from another agent is shown as from that agent, never as the
// user's (live events and resumed history alike).
func TestAgentInputIsNotShownAsTheUser(t *testing.T) {
	s := newSession()
	s.apply(started(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot, StartedAt: t0}, 0))
	s.apply(started(child(explorerID, "explorer", "", "", 1, rootID), time.Second))
	in := ev(protocol.EventAgentInput, explorerID, 2*time.Second)
	in.Message, in.From = "find the parser", rootID
	tv := s.apply(in)
	if tv == nil || len(tv.entries) != 1 {
		t.Fatalf("agent input not shown: %+v", tv)
	}
	if e := tv.entries[0]; e.kind == entryUser || !strings.Contains(e.text, "message from root") || !strings.Contains(e.text, "find the parser") {
		t.Fatalf("entry %+v", e)
	}
	hv := newThreadView(child(workerID, "worker", "", "", 1, rootID))
	hv.loadHistory([]protocol.Item{protocol.AgentMessage(rootID, "fix it")})
	if len(hv.entries) != 1 || hv.entries[0].kind == entryUser || !strings.Contains(hv.entries[0].text, "message from agent") {
		t.Fatalf("resumed agent message %+v", hv.entries)
	}
}
