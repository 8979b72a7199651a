package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// twelveAgents is a root with twelve children, each with a note (two rows
// per agent in the tree).
func twelveAgents() []protocol.Event {
	var evs []protocol.Event
	for i := 1; i <= 12; i++ {
		id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-0000000000%02d", i))
		evs = append(evs, started(child(id, "worker", fmt.Sprintf("w%02d", i), fmt.Sprintf("task %02d", i), 1, rootID), time.Second))
	}
	return evs
}

func TestTreeCursorStaysOnScreen(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = feed(m, twelveAgents()...)
	m, _ = press(m, "tab")
	for i := 1; i <= 12; i++ {
		m, _ = press(m, "down")
		want := fmt.Sprintf("worker/w%02d", i)
		s := screen(m)
		if !strings.Contains(s, want) || !strings.Contains(s, fmt.Sprintf("task %02d", i)) {
			t.Fatalf("cursor on %s is off-screen:\n%s", want, s)
		}
	}
	s := screen(m)
	checkSize(t, s, 80, 24)
	golden(t, "12_agents_80x24_last", s)
	// Back up to the root: the top of the tree shows again.
	for range 12 {
		m, _ = press(m, "up")
	}
	if s := screen(m); !strings.Contains(s, "root") || !strings.Contains(s, "agents 13") {
		t.Fatalf("top not shown:\n%s", s)
	}
}

func TestTreeStart(t *testing.T) {
	order := make([]protocol.ThreadID, 12)
	for i := range order {
		order[i] = protocol.ThreadID(fmt.Sprint(i))
	}
	two := func(protocol.ThreadID) int { return 2 }
	for _, c := range []struct{ sel, rows, want int }{
		{0, 10, 0}, {4, 10, 0}, {5, 10, 1}, {11, 10, 7}, {11, 9, 8}, {11, 1, 11}, {3, 100, 0},
	} {
		if got := treeStart(order, c.sel, c.rows, two); got != c.want {
			t.Errorf("treeStart(sel %d, rows %d) = %d, want %d", c.sel, c.rows, got, c.want)
		}
	}
}
