package surfacetest

import (
	"sync"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/protocol"
)

// Recorder keeps every event the engine published since Start. Its one
// goroutine is owned by the Env and ends when the subscription closes
// (engine shutdown) or the Env's cleanup cancels it.
type Recorder struct {
	mu      sync.Mutex
	events  []protocol.Event
	changed chan struct{} // closed and replaced on each event
	cancel  func()
	done    chan struct{}
}

func record(e *engine.Engine) *Recorder {
	ch, cancel := e.Subscribe()
	r := &Recorder{changed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for ev := range ch {
			r.mu.Lock()
			r.events = append(r.events, ev)
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
		}
	}()
	return r
}

func (r *Recorder) stop() {
	r.cancel()
	<-r.done
}

// Changed is closed when the next event arrives.
func (r *Recorder) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// await blocks until an event matches (true) or the engine's event
// stream ends or a hang guard passes (false).
func (r *Recorder) await(match func(protocol.Event) bool) bool {
	guard := time.After(60 * time.Second)
	for seen := 0; ; {
		r.mu.Lock()
		changed, events := r.changed, r.events[seen:]
		r.mu.Unlock()
		for _, ev := range events {
			if match(ev) {
				return true
			}
		}
		seen += len(events)
		select {
		case <-changed:
		case <-r.done:
			return false
		case <-guard:
			return false
		}
	}
}

// Len is how many events arrived so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// All is a copy of the events so far.
func (r *Recorder) All() []protocol.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]protocol.Event(nil), r.events...)
}

// Since reports whether an event from index mark on matches.
func (r *Recorder) Since(mark int, match func(protocol.Event) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range r.events[mark:] {
		if match(ev) {
			return true
		}
	}
	return false
}

// Find returns the events of type typ, in order.
func (r *Recorder) Find(typ protocol.EventType) []protocol.Event {
	var out []protocol.Event
	for _, ev := range r.All() {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// WaitEvent waits (on events, with a hang guard) for an event that
// matches and returns it.
func (env *Env) WaitEvent(match func(protocol.Event) bool) protocol.Event {
	env.T.Helper()
	guard := time.After(60 * time.Second)
	for seen := 0; ; {
		changed := env.Events.Changed()
		all := env.Events.All()
		for _, ev := range all[seen:] {
			if match(ev) {
				return ev
			}
		}
		seen = len(all)
		select {
		case <-changed:
		case <-guard:
			env.T.Fatalf("no matching event in %d events", seen)
		}
	}
}
