package engine

import (
	"sync"
	"time"

	"github.com/grovecli/grove/protocol"
)

// threadStatus is a thread's status and who watches it: waiters (a channel
// closed on every change) and observers (a feed each, every transition in
// order). Its mu serialises transitions so their events and rollout lines
// appear in the order they happened; it is taken before the thread's mu
// when a transition depends on the turn state (see transition).
type threadStatus struct {
	mu      sync.Mutex
	cur     protocol.AgentStatus
	at      time.Time
	changed chan struct{} // closed and replaced on every status change
	feeds   []*statusFeed
}

func newThreadStatus(s protocol.AgentStatus, at time.Time) threadStatus {
	return threadStatus{cur: s, at: at, changed: make(chan struct{})}
}

// get returns the current status and when it began.
func (s *threadStatus) get() (protocol.AgentStatus, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.at
}

// watch returns the status and a channel closed on the next change.
func (s *threadStatus) watch() (protocol.AgentStatus, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.changed
}

// changeLocked sets the status (mu held); false when it is the same one.
func (s *threadStatus) changeLocked(next protocol.AgentStatus, at time.Time) bool {
	if s.cur.Kind == next.Kind && s.cur.Message == next.Message && s.cur.HasMessage == next.HasMessage {
		return false
	}
	s.cur, s.at = next, at
	return true
}

// announceLocked wakes the waiters and feeds every observer the status
// (mu held).
func (s *threadStatus) announceLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
	for _, f := range s.feeds {
		f.push(s.cur)
	}
}

// subscribe adds an observer's feed, or closes it at once when closed
// reports the thread closed (asked under mu, so no change is missed).
func (s *threadStatus) subscribe(closed func() bool) *statusFeed {
	f := newStatusFeed()
	s.mu.Lock()
	defer s.mu.Unlock()
	if closed() {
		f.close()
	} else {
		s.feeds = append(s.feeds, f)
	}
	return f
}

// closeFeeds ends every observer's stream (the thread was closed).
func (s *threadStatus) closeFeeds() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.feeds {
		f.close()
	}
	s.feeds = nil
}

// Status returns the current status and when it began.
func (t *Thread) Status() (protocol.AgentStatus, time.Time) { return t.status.get() }

// setStatus records a transition: event, rollout line (flushed), waiters
// and observers, and the session index.
func (t *Thread) setStatus(s protocol.AgentStatus) {
	t.status.mu.Lock()
	changed := t.setStatusLocked(s)
	t.status.mu.Unlock()
	// Outside status.mu: the index walks the tree under e.tree.mu, which is taken before status.mu.
	if changed {
		t.e.updateIndex(t)
	}
}

// setStatusLocked is setStatus for a caller holding status.mu, minus the
// session index (the caller updates it after unlocking when this reports a
// change).
func (t *Thread) setStatusLocked(s protocol.AgentStatus) bool {
	if !t.status.changeLocked(s, t.e.now()) {
		return false
	}
	ev := protocol.NewEvent(t.id, "", protocol.StatusChangedMsg{Status: s})
	ev.Timestamp = t.status.at
	// The rollout is durable before anyone hears of the change: whoever
	// sees a status (a waiter, the UI, a resume) can rely on the file.
	t.emitMu.Lock() // recorded and published as one step (see publish)
	defer t.emitMu.Unlock()
	t.record(ev)
	t.flush()
	t.status.announceLocked()
	t.e.bus.Publish(ev)
	return true
}

// transition makes a status change that depends on the turn state in one
// critical section with deliveries and turn ends (status.mu, then mu):
// decide runs under both and returns the status to set, if any.
func (t *Thread) transition(decide func(cur protocol.AgentStatus) (protocol.AgentStatus, bool)) {
	t.status.mu.Lock()
	t.mu.Lock()
	next, ok := decide(t.status.cur)
	t.mu.Unlock()
	changed := ok && t.setStatusLocked(next)
	t.status.mu.Unlock()
	if changed {
		t.e.updateIndex(t)
	}
}
