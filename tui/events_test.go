package tui

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// The event reader batches by frame but loses, reorders or merges nothing.
func TestWaitEventsKeepsEveryEventInOrder(t *testing.T) {
	ch := make(chan protocol.Event, 64)
	const n = 3*maxEventBatch + 17
	go func() {
		for i := range n {
			typ := protocol.EventMessageDelta
			if i%7 == 0 {
				typ = protocol.EventStatusChanged
			}
			ch <- protocol.Event{Type: typ, Seq: uint64(i + 1)}
		}
		close(ch)
	}()
	var got []protocol.Event
	for batches := 0; ; batches++ {
		msg := waitEvents(ch)().(eventsMsg)
		if len(msg.events) > maxEventBatch {
			t.Fatalf("batch of %d events, max %d", len(msg.events), maxEventBatch)
		}
		got = append(got, msg.events...)
		if msg.closed {
			break
		}
		if batches > n {
			t.Fatal("reader never saw the channel close")
		}
	}
	if len(got) != n {
		t.Fatalf("got %d events, want %d", len(got), n)
	}
	for i, ev := range got {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
}
