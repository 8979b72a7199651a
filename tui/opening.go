package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// Opening a session rebuilds every thread from its rollout's recorded
// events; a long session holds tens of thousands, seconds of work. It runs
// in the command that opens the session, off the UI goroutine, into a
// session the screen does not see yet; Update then swaps it in. Meanwhile
// the screen shows the session being opened (at start) or stays on the
// current one (picker, /resume, /new), and keys keep working.

// opened is a backend made ready to attach.
type opened struct {
	b       Backend
	events  <-chan protocol.Event
	unsub   func()
	sess    *session
	pending []protocol.ApprovalRequest
	warn    string // a transcript rebuilt from its messages only
}

// prepare subscribes first, then snapshots, so no event is missed: events
// that arrive during the replay wait in the subscription, and those the
// replay already covered are skipped when they are read (replayed).
func prepare(b Backend) opened {
	o := opened{b: b, sess: newSession()}
	if src, ok := b.(SkillSource); ok {
		o.sess.skills = map[string]bool{}
		for _, s := range src.Skills() {
			o.sess.skills[s.Name] = true
		}
	}
	o.events, o.unsub = b.Subscribe()
	// Every thread first: a parent's history reports on its children.
	threads := visibleCopy(b.Threads())
	for _, ti := range threads {
		o.sess.ensure(ti).setStatus(ti.Status, time.Time{})
	}
	for _, ti := range threads {
		if warn := o.sess.restore(o.sess.threads[ti.ID], visibleCopy(b.History(ti.ID))); warn != "" {
			o.warn = warn
		}
	}
	o.sess.sortAllChildren()
	o.pending = visibleCopy(b.PendingApprovals())
	return o
}

// openCmd prepares b off the UI goroutine.
func openCmd(b Backend) tea.Cmd {
	return func() tea.Msg { return backendMsg{o: prepare(b)} }
}

// openingLines is the body while the first session is being prepared.
func (m Model) openingLines() []string {
	what := "opening the session"
	if m.opening != nil {
		what = "opening session " + m.opening.RootID().Short()
	}
	return []string{"", "  " + m.th.dim.Render(what+" · rebuilding its transcript…")}
}
