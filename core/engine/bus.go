package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Bus fans engine events out to subscribers. Publishing never blocks: every
// subscriber has its own unbounded queue drained by its own goroutine, so a
// slow reader (the TUI) never stalls an agent. When a reader lags, adjacent
// message deltas of the same thread are merged; no other event is dropped.
type Bus struct {
	seq  atomic.Uint64
	now  func() time.Time
	mu   sync.Mutex
	subs map[*subscription]struct{}
	wg   sync.WaitGroup
}

func newBus(now func() time.Time) *Bus {
	return &Bus{now: now, subs: map[*subscription]struct{}{}}
}

type subscription struct {
	mu     sync.Mutex
	queue  []protocol.Event
	wake   chan struct{}
	done   chan struct{}
	out    chan protocol.Event
	closed bool
	once   sync.Once
}

// Publish stamps ev with a sequence number and timestamp and queues it for
// every subscriber.
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
// cancel func that stops delivery and closes the channel.
func (b *Bus) Subscribe() (<-chan protocol.Event, func()) {
	s := &subscription{
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
		out:  make(chan protocol.Event, 64),
	}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		s.pump()
	}()
	cancel := func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.once.Do(func() { close(s.done) })
	}
	return s.out, cancel
}

// Close ends every subscription (their channels close once drained of what
// was already queued) and waits for the pumps to exit.
func (b *Bus) Close() {
	b.mu.Lock()
	subs := make([]*subscription, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	b.wg.Wait()
}

func (s *subscription) push(ev protocol.Event) {
	s.mu.Lock()
	if n := len(s.queue); n > 0 && ev.Type == protocol.EventMessageDelta {
		last := &s.queue[n-1]
		if last.Type == protocol.EventMessageDelta && last.ThreadID == ev.ThreadID && last.TurnID == ev.TurnID {
			last.Delta += ev.Delta
			last.Seq = ev.Seq
			s.mu.Unlock()
			return
		}
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscription) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		closed := s.closed
		s.mu.Unlock()
		for _, ev := range batch {
			select {
			case s.out <- ev:
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
