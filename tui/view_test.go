package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// stateOf is what View must never change.
func stateOf(m Model) string {
	s := fmt.Sprintf("sel=%d focused=%s area=%d ticking=%v", m.selected, m.focused, m.area, m.ticking)
	if m.overlay != nil {
		s += fmt.Sprintf(" overlay=%+v", *m.overlay)
	}
	for _, id := range m.sess.treeOrder() {
		t := m.sess.threads[id]
		s += fmt.Sprintf(" [%s top=%d follow=%v entries=%d", id.Short(), t.top, t.follow, len(t.entries))
		for _, e := range t.entries {
			s += fmt.Sprintf(" %v", e.cardIDs)
		}
		s += "]"
	}
	return s
}

func TestViewDoesNotChangeState(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = feed(m, treeScenario()...)
	// A card whose targets come only from its arguments, still running.
	m = feed(m, toolBegin(rootID, "w2", "wait", `{"ids":["`+string(reviewerID)+`"]}`))
	m, _ = press(m, "ctrl+t")
	for range 9 {
		m, _ = press(m, "down") // past the last row
	}
	before := stateOf(m)
	_ = m.View()
	if after := stateOf(m); before != after {
		t.Fatalf("View changed the state (overlay open):\n%s\n%s", before, after)
	}
	m, _ = press(m, "esc")
	m.sess.threads[rootID].follow = true
	mid := stateOf(m)
	_ = m.View()
	if after := stateOf(m); mid != after {
		t.Fatalf("View changed the state:\n%s\n%s", mid, after)
	}
}

func TestIdleTickStops(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	if m.ticking {
		t.Fatal("an idle session ticks")
	}
	mm, cmd := m.Update(eventsMsg{events: []protocol.Event{status(rootID, protocol.Running(), time.Second)}})
	m = mm.(Model)
	if !m.ticking || cmd == nil {
		t.Fatal("a running agent does not start the tick")
	}
	mm, cmd = m.Update(tickMsg(t0))
	m = mm.(Model)
	if cmd == nil || !m.ticking {
		t.Fatal("the tick stopped while an agent runs")
	}
	m = feed(m, status(rootID, protocol.Completed("done", true), 2*time.Second))
	mm, cmd = m.Update(tickMsg(t0))
	m = mm.(Model)
	if cmd != nil || m.ticking {
		t.Fatal("the tick goes on with nothing to animate")
	}
}

// TestInlineLeavesTheAlternateScreen: Options.Inline (tui.alternate_screen
// never) asks Bubble Tea for the main screen; the default keeps the
// alternate one.
func TestInlineLeavesTheAlternateScreen(t *testing.T) {
	for _, inline := range []bool{false, true} {
		m := NewModel(Options{Backend: newFake(rootInfo()), Inline: inline})
		mm, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		if got := mm.(Model).View().AltScreen; got == inline {
			t.Errorf("inline %v: alternate screen %v", inline, got)
		}
	}
}
