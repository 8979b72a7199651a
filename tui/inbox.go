package tui

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// applyInbox shows a sub-agent's notification (inbox surface) in its
// parent's transcript: messages and results as info lines, a question
// highlighted, with how to answer it (the parent model answers with
// reply_to_subagent; the user can also select the sub-agent in the tree
// and type). Read flags and sub-agent records are not shown.
func (t *threadView) applyInbox(ch *protocol.InboxChange) {
	if ch == nil || ch.Notification == nil {
		return
	}
	n := ch.Notification
	from := n.From.Short()
	switch n.Kind {
	case protocol.NotifyQuestion:
		t.add(&entry{kind: entryWarning, text: fmt.Sprintf("question from sub-agent %s: %s\n(answer: select %s in the tree and type, or let this agent reply)", from, n.Text, from)})
	case protocol.NotifyMessage:
		t.add(&entry{kind: entryInfo, text: fmt.Sprintf("✉ sub-agent %s: %s", from, n.Text)})
	case protocol.NotifyCompleted:
		t.add(&entry{kind: entryInfo, text: fmt.Sprintf("✉ sub-agent %s completed: %s", from, n.Text)})
	case protocol.NotifyError:
		t.add(&entry{kind: entryWarning, text: fmt.Sprintf("sub-agent %s failed: %s", from, n.Text)})
	}
}
