package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// TestGraceEndIsShown: while its input grace runs the modal says answers
// open in a moment; a one-shot tick, armed once per grace, redraws it when
// the grace ends, and then it names its keys (the cue the tmux tests wait
// for instead of sleeping through the grace).
func TestGraceEndIsShown(t *testing.T) {
	const grace = 10 * time.Millisecond
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: newFake(rootInfo()), Now: c.now, ApprovalGrace: grace})
	m.realClock = true // arm real ticks; the test moves its clock past the grace itself
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.(Model).Update(eventsMsg{events: []protocol.Event{execApproval("ap1", 0, "make")}})
	m = mm.(Model)
	if s := screen(m); !strings.Contains(s, "typing goes to the composer · answers open in a moment") {
		t.Fatalf("during the grace:\n%s", s)
	}
	if want := m.appr.shownAt.Add(grace); !m.graceEnd.Equal(want) {
		t.Fatalf("tick armed for %v, want the grace's end %v", m.graceEnd, want)
	}
	if m.graceTick() != nil {
		t.Fatal("a second tick armed for the same grace")
	}
	m.graceEnd = time.Time{}
	msg := m.graceTick()() // the armed tick, run: it fires at the grace's end
	if _, ok := msg.(graceEndMsg); !ok {
		t.Fatalf("the tick delivered %T", msg)
	}
	c.t = c.t.Add(grace)
	mm, _ = m.Update(msg)
	if s := screen(mm.(Model)); !strings.Contains(s, "typing goes to the composer · tab to answer") {
		t.Fatalf("after the grace:\n%s", s)
	}
}
