package app

import (
	"context"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// The TUI's Esc-Esc through the app (cmd/grove's tuiSessions.rewind):
// while a session is open, a second one opens as its fork cut before the
// last user message, and Rewound is that message for the composer.
func TestStartRewindOpensAForkCutBeforeTheMessage(t *testing.T) {
	isolate(t)
	o := testOptions(t)
	o.Start.Subscribe = true
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Nobody reads Events any more: Close drops what is left.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_ = s.Close(ctx)
		for range s.Events() {
		}
	})
	for _, text := range []string{"first", "second"} {
		if err := s.Turn(Turn{Text: text}); err != nil {
			t.Fatal(err)
		}
		for ev := range s.Events() {
			if ev.Type == protocol.EventTurnCompleted && ev.ThreadID == s.Root() {
				break
			}
		}
	}
	o2 := o
	o2.Scratch = t.TempDir()
	o2.Start = Start{Resume: string(s.Root()), Fork: true, Rewind: 1}
	f, err := Open(context.Background(), o2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close(context.Background()) })
	if f.Root() == s.Root() || f.Rewound() != "second" {
		t.Fatalf("fork %s rewound %q, want a new session and %q", f.Root(), f.Rewound(), "second")
	}
	var users []string
	for _, it := range f.Engine().History(f.Root()) {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser && !it.IsGroveNotice() {
			users = append(users, it.Content)
		}
	}
	if len(users) != 1 || users[0] != "first" {
		t.Fatalf("fork's user messages %q, want only %q", users, "first")
	}
}
