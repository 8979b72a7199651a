package tui

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A session another grove is writing opens read-only here (issue 35 item
// 4): the picker says so before the user picks it, naming that process.

// holder is the process that writes a session's rollout.
type holder struct {
	pid int
	cmd string
}

// words says who holds the session and what opening it does.
func (h holder) words(id protocol.ThreadID) string {
	who := fmt.Sprintf("open in pid %d", h.pid)
	if h.cmd != "" {
		who += " (" + h.cmd + ")"
	}
	return who + ": opens read-only; grove resume --fork " + string(id.Short()) + " continues a copy"
}

// holders names the other processes writing the sessions of a picker page
// (read from /proc/locks off the UI loop, without taking any lock).
func holders(entries []rollout.IndexEntry) map[protocol.ThreadID]holder {
	out := map[protocol.ThreadID]holder{}
	for _, e := range entries {
		if e.RolloutPath == "" {
			continue
		}
		if pid, cmd := sessionHolder(e.RolloutPath); pid > 0 {
			out[e.ID] = holder{pid: pid, cmd: cmd}
		}
	}
	return out
}

// sessionHolder finds a rollout's writer (tests replace it).
var sessionHolder = rollout.Holder
