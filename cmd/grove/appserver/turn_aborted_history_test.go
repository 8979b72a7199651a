package appserver

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestTurnAbortedNoticeIsNoUserTurn: the notice an interrupted turn leaves
// for the model (agents.interrupt_message) is not shown as a user turn in
// a thread read back from history, nor as its preview; Codex's app-server
// leaves its turn_aborted marker out of thread history the same way.
func TestTurnAbortedNoticeIsNoUserTurn(t *testing.T) {
	notice := protocol.TurnAbortedNotice("The user interrupted the previous turn on purpose.")
	items := []protocol.Item{notice, protocol.UserMessage("first"), protocol.AssistantMessage("partial"), notice, protocol.UserMessage("go on")}
	turns := turnsFromHistory("th", items, "/tmp")
	if len(turns) != 2 {
		t.Fatalf("%d turns, want 2 (one per user message): %+v", len(turns), turns)
	}
	for _, tu := range turns {
		for _, it := range tu.Items {
			if u, ok := it.(protocol.AppUserMessageItem); ok && u.Content[0].Text != "first" && u.Content[0].Text != "go on" {
				t.Errorf("user message %q in turn %s", u.Content[0].Text, tu.ID)
			}
		}
	}
	if p := firstPrompt(items); p != "first" {
		t.Errorf("preview %q, want first", p)
	}
}
