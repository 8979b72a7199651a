package engine

import (
	"sync"

	"github.com/grovecli/grove/protocol"
)

// statusFeed is an unbounded, ordered stream of one thread's status changes
// for one observer: no transition is ever dropped, and the producer never
// blocks. It closes when the thread is closed.
type statusFeed struct {
	mu     sync.Mutex
	queue  []protocol.AgentStatus
	closed bool
	wake   chan struct{}
}

func newStatusFeed() *statusFeed { return &statusFeed{wake: make(chan struct{}, 1)} }

func (f *statusFeed) push(s protocol.AgentStatus) {
	f.mu.Lock()
	if !f.closed {
		f.queue = append(f.queue, s)
	}
	f.mu.Unlock()
	f.signal()
}

func (f *statusFeed) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.signal()
}

func (f *statusFeed) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// next blocks until a status is available (ok) or the feed is closed and
// drained (!ok), or stop is closed.
func (f *statusFeed) next(stop <-chan struct{}) (protocol.AgentStatus, bool) {
	for {
		f.mu.Lock()
		if len(f.queue) > 0 {
			s := f.queue[0]
			f.queue = f.queue[1:]
			f.mu.Unlock()
			return s, true
		}
		closed := f.closed
		f.mu.Unlock()
		if closed {
			return protocol.AgentStatus{}, false
		}
		select {
		case <-f.wake:
		case <-stop:
			return protocol.AgentStatus{}, false
		}
	}
}
