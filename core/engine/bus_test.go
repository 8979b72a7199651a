package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// hangGuard is how long a call may take before the test calls it a hang.
// It only catches deadlocks (the old Close blocked forever); it asserts no
// speed.
const hangGuard = 20 * time.Second

// returnsOrHangs runs f and fails the test if it never returns.
func returnsOrHangs(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("%s blocked on a subscriber that stopped reading", what)
	}
}

func TestBusCloseNeverWaitsOnStalledSubscriber(t *testing.T) {
	b := newBus(time.Now)
	stalled, cancelStalled := b.Subscribe()
	reader, cancelReader := b.Subscribe()
	defer cancelReader()
	got := make(chan int)
	go func() {
		n := 0
		for range reader {
			n++
		}
		got <- n
	}()
	// Far more than the channel buffer, so the stalled pump is blocked
	// sending when Close runs.
	const n = 1000
	for i := range n {
		b.Publish(protocol.Event{Type: protocol.EventWarning, Message: fmt.Sprint(i)})
	}
	returnsOrHangs(t, "Close", b.Close)
	if m := <-got; m != n {
		t.Fatalf("reading subscriber got %d events, want %d", m, n)
	}
	// The stalled subscriber still gets everything queued before Close,
	// in order, and then its channel closes.
	i := 0
	for ev := range stalled {
		if ev.Message != fmt.Sprint(i) {
			t.Fatalf("event %d is %q", i, ev.Message)
		}
		i++
	}
	if i != n {
		t.Fatalf("stalled subscriber got %d events after draining, want %d", i, n)
	}
	cancelStalled()
}

func TestBusCancelAfterCloseEndsStalledPump(t *testing.T) {
	b := newBus(time.Now)
	_, cancel := b.Subscribe()
	for range 200 {
		b.Publish(protocol.Event{Type: protocol.EventWarning})
	}
	returnsOrHangs(t, "Close", b.Close)
	returnsOrHangs(t, "second Close", b.Close)
	// The subscriber never reads; cancelling must end its pump (goleak in
	// TestMain checks no goroutine is left).
	cancel()
}

func TestBusAfterClose(t *testing.T) {
	b := newBus(time.Now)
	b.Close()
	ev := b.Publish(protocol.Event{Type: protocol.EventWarning})
	if ev.Seq == 0 || ev.Timestamp.IsZero() {
		t.Fatalf("publish after close did not stamp: %+v", ev)
	}
	ch, cancel := b.Subscribe()
	defer cancel()
	if _, ok := <-ch; ok {
		t.Fatal("subscribing after close delivered an event")
	}
}

// A deep tree (root → 3 orchestrators → 3 workers each, all still busy) is
// shut down while one subscriber has stopped reading, as `grove exec` does
// after the root's turn: Shutdown must not wait on that subscriber.
func TestShutdownDeepTreeWithStalledSubscriber(t *testing.T) {
	const width = 3
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				var cs []model.ToolCallRequest
				for i := range width {
					cs = append(cs, toolCall(fmt.Sprintf("o%d", i), "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "spawn workers"}))
				}
				return calls(cs...), nil
			}
			return text("tree started"), nil
		},
		"orchestrator": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				var cs []model.ToolCallRequest
				for i := range width {
					cs = append(cs, toolCall(fmt.Sprintf("w%d", i), "spawn_agent", map[string]any{"message": "work forever"}))
				}
				return calls(cs...), nil
			}
			return block(ctx, tn)
		},
		"default": block,
	}, func(o *Options) { o.MaxDepth = 2; o.MaxThreads = 2 * width * width })
	stalled, cancelStalled := env.e.Subscribe()
	defer cancelStalled()
	env.send("go")
	env.rootFinal(1)
	deadline := time.After(hangGuard)
	for started := 0; started < 1+width+width*width; {
		evs, changed := env.events.snapshot()
		started = 0
		for _, ev := range evs {
			if ev.Type == protocol.EventThreadStarted {
				started++
			}
		}
		if started >= 1+width+width*width {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("only %d threads started", started)
		}
	}
	var err error
	returnsOrHangs(t, "Shutdown", func() {
		ctx, stop := context.WithTimeout(context.Background(), hangGuard)
		defer stop()
		err = env.e.Shutdown(ctx)
	})
	if err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	// Everything queued for the stalled subscriber is still delivered,
	// ending with shutdown_complete, and then the channel closes.
	var last protocol.Event
	closed := 0
	for ev := range stalled {
		last = ev
		if ev.Type == protocol.EventThreadClosed {
			closed++
		}
	}
	if last.Type != protocol.EventShutdownComplete {
		t.Fatalf("last event %s, want shutdown_complete", last.Type)
	}
	if closed != 1+width+width*width {
		t.Fatalf("%d thread_closed events, want %d", closed, 1+width+width*width)
	}
}

// BenchmarkBusPublishLaggingReader: one op = one delta published while the
// reader is busy elsewhere (it reads every 10 000 deltas), so deltas merge
// in the queue; merging must stay linear in the text length.
func BenchmarkBusPublishLaggingReader(b *testing.B) {
	bus := newBus(time.Now)
	ch, cancel := bus.Subscribe()
	defer cancel()
	d := protocol.Event{Type: protocol.EventMessageDelta, ThreadID: "t", TurnID: "u", Delta: "word "}
	got := 0
	drain := func() {
		for {
			select {
			case ev := <-ch:
				got += len(ev.Delta)
			default:
				return
			}
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bus.Publish(d)
		if i%10_000 == 9_999 {
			drain()
		}
	}
	b.StopTimer()
	bus.Publish(protocol.Event{Type: protocol.EventWarning})
	for ev := range ch {
		got += len(ev.Delta)
		if ev.Type == protocol.EventWarning {
			break
		}
	}
	if got != b.N*len(d.Delta) {
		b.Fatalf("delivered %d bytes of deltas, want %d", got, b.N*len(d.Delta))
	}
}
