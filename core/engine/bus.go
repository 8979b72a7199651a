package engine

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Bus fans engine events out to subscribers. Publishing never blocks: every
// subscriber has its own unbounded queue drained by its own goroutine, so a
// slow reader (the TUI) never stalls an agent. When a reader lags, adjacent
// message deltas of the same thread are merged; no other event is dropped.
//
// Nothing on the bus ever waits for a reader: not Publish, not Close. A
// subscription's pump belongs to its subscriber and ends when the subscriber
// has drained the closed queue or cancelled; Close only tells the pumps.
type Bus struct {
	seq    atomic.Uint64
	now    func() time.Time
	mu     sync.Mutex
	subs   map[*subscription]struct{}
	closed bool
}

func newBus(now func() time.Time) *Bus {
	return &Bus{now: now, subs: map[*subscription]struct{}{}}
}

type subscription struct {
	mu     sync.Mutex
	queue  []queued
	wake   chan struct{}
	done   chan struct{}
	out    chan protocol.Event
	closed bool
	once   sync.Once
}

// Publish stamps ev with a sequence number and timestamp and queues it for
// every subscriber. After Close it only stamps ev.
func (b *Bus) Publish(ev protocol.Event) protocol.Event {
	ev.Seq = b.seq.Add(1)
	if ev.Timestamp.IsZero() {
		ev.Timestamp = b.now()
	}
	b.mu.Lock()
	for s := range b.subs {
		s.push(ev)
	}
	b.mu.Unlock()
	return ev
}

// Subscribe returns a channel of every event published from now on and a
// cancel func that stops delivery and closes the channel. After Close the
// channel is already closed.
func (b *Bus) Subscribe() (<-chan protocol.Event, func()) {
	s := &subscription{
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
		out:  make(chan protocol.Event, 64),
	}
	cancel := func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.once.Do(func() { close(s.done) })
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(s.out)
		return s.out, cancel
	}
	b.subs[s] = struct{}{}
	go s.pump()
	return s.out, cancel
}

// Close ends every subscription: each channel closes once its reader has
// received what was already queued (or at once when it cancels). Close
// returns without waiting for any reader, so a shutdown never hangs on a
// consumer that stopped reading. Safe to call more than once.
func (b *Bus) Close() {
	b.mu.Lock()
	b.closed = true
	subs := b.subs
	b.subs = map[*subscription]struct{}{}
	b.mu.Unlock()
	for s := range subs {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.signal()
	}
}

// queued is one event waiting for the reader. While the reader lags, later
// deltas of the same message are appended to more, so merging n deltas
// costs O(total length), not O(n × length).
type queued struct {
	ev   protocol.Event
	more *strings.Builder
}

func (q *queued) event() protocol.Event {
	if q.more != nil {
		q.ev.Delta = q.more.String()
	}
	return q.ev
}

func (s *subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscription) push(ev protocol.Event) {
	s.mu.Lock()
	if n := len(s.queue); n > 0 && ev.Type == protocol.EventMessageDelta {
		last := &s.queue[n-1]
		if l := &last.ev; l.Type == protocol.EventMessageDelta && l.ThreadID == ev.ThreadID && l.TurnID == ev.TurnID {
			if last.more == nil {
				last.more = &strings.Builder{}
				last.more.WriteString(l.Delta)
			}
			last.more.WriteString(ev.Delta)
			l.Seq = ev.Seq
			s.mu.Unlock()
			return
		}
	}
	s.queue = append(s.queue, queued{ev: ev})
	s.mu.Unlock()
	s.signal()
}

// pump moves queued events to the subscriber's channel. It is owned by the
// subscriber: it stops on cancel, or after a Close once the queue is empty.
func (s *subscription) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		closed := s.closed
		s.mu.Unlock()
		for i := range batch {
			select {
			case s.out <- batch[i].event():
			case <-s.done:
				return
			}
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}
