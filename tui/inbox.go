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
	if ch == nil {
		return
	}
	for _, seq := range ch.Read {
		delete(t.unread, seq)
	}
	if ch.Notification == nil {
		return
	}
	n := ch.Notification
	if !n.Read {
		if t.unread == nil {
			t.unread = map[int]bool{}
		}
		t.unread[n.Seq] = true
	}
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

// unreadBadge is the tree's mark for unread inbox notifications ("" when
// there are none).
func (t *threadView) unreadBadge() string {
	if len(t.unread) == 0 {
		return ""
	}
	return fmt.Sprintf(" ✉%d", len(t.unread))
}
