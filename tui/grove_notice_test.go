package tui

import (
	"strings"
	"testing"

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
