package tui

import (
	"fmt"
	"io"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Exit is what stays in the normal terminal after the full-screen UI
// closes: the root's last answer (the screen that showed it is gone, and
// with mouse capture it could not be selected) and how to come back.
type Exit struct {
	SessionID  protocol.ThreadID
	LastAnswer string
}

// exit collects the Exit of the open session.
func (m Model) exit() Exit {
	if m.backend == nil || m.sess.root == "" {
		return Exit{}
	}
	e := Exit{SessionID: m.sess.root}
	if t := m.sess.threads[m.sess.root]; t != nil {
		for i := len(t.entries) - 1; i >= 0; i-- {
			if en := t.entries[i]; en.kind == entryAssistant && strings.TrimSpace(en.text) != "" {
				e.LastAnswer = en.text
				break
			}
		}
	}
	return e
}

// Print writes the exit summary: the last answer as plain text, then the
// resume command.
func (e Exit) Print(w io.Writer) error {
	if e.SessionID == "" {
		return nil
	}
	var b strings.Builder
	if a := strings.TrimSpace(e.LastAnswer); a != "" {
		b.WriteString(a)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Resume this session with: grove resume %s\n", e.SessionID)
	_, err := io.WriteString(w, b.String())
	return err
}
