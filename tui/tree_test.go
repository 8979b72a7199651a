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
		want := fmt.Sprintf("w%02d (worker)", i)
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

// A tree row built from cached parts shows what the full render shows, and
// follows every change: spinner frames, elapsed time, label, closing,
// width, and a label too long for the row (cut with an ellipsis).
func TestCachedTreeRowMatchesFullRow(t *testing.T) {
	m, c := newTestModel(t, 100, 30, newFake(rootInfo()))
	m = feed(m, started(child(explorerID, "explorer", "", "", 1, rootID), time.Second), status(explorerID, protocol.Running(), 2*time.Second))
	tv := m.sess.threads[explorerID]
	check := func(w int) {
		t.Helper()
		indent, elapsed := m.treePrefix(tv), formatElapsed(tv, m.now())
		glyph, label := m.r.threadGlyph(tv), roleLabel(tv.info)+tv.unreadBadge()
		got := ansiStrip(m.cachedTreeRow(tv, indent, glyph, label, elapsed, w))
		want := ansiStrip(m.treeRow(indent, glyph, label, elapsed, w))
		if got != want || lipglossWidth(got) != w {
			t.Fatalf("width %d:\n got %q\nwant %q", w, got, want)
		}
	}
	for range 12 {
		m.r.frame++
		check(40)
	}
	c.t = c.t.Add(3 * time.Second)
	check(40)
	tv.unread = map[int]bool{1: true}
	check(40)
	check(60)
	tv.info.AgentName = strings.Repeat("long", 20)
	check(40)
	m = feed(m, ev(protocol.EventThreadClosed, explorerID, 5*time.Second))
	check(40)
}
