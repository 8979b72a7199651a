package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestStatusLineKeepsHintsAt80(t *testing.T) {
	fb := newFake(rootInfo())
	fb.info.Cwd = "/work/a/very/long/path/to/the/project/that/goes/on/and/on/for/ever"
	m, _ := newTestModel(t, 80, 24, fb)
	lines := strings.Split(screen(m), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "? help") {
		t.Fatalf("status line %q", last)
	}
	m2, _ := newTestModel(t, 120, 30, newFake(rootInfo()))
	if last := strings.Split(screen(m2), "\n")[29]; !strings.Contains(last, "tab tree  ctrl+t agents  ? help") {
		t.Fatalf("status line %q", last)
	}
}

func TestHelpColumnsAlign(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	m, _ = press(m, "?")
	col := -1
	for _, l := range strings.Split(screen(m), "\n") {
		for _, b := range keys.FullHelp()[0] {
			h := [2]string{b.Help().Key, b.Help().Desc}
			if i := strings.Index(l, h[1]); i > 0 && strings.Contains(l, h[0]) {
				if c := ansi.StringWidth(l[:i]); col < 0 {
					col = c
				} else if c != col {
					t.Fatalf("%q starts at column %d, others at %d", h[1], c, col)
				}
			}
		}
	}
	if col < 0 {
		t.Fatal("no help rows found")
	}
}

func TestMouseCaptureToggle(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	if m.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("mouse capture should start on")
	}
	mm, _ := m.Update(tea.KeyPressMsg{Code: 'm', Mod: tea.ModAlt})
	m = mm.(Model)
	if m.View().MouseMode != tea.MouseModeNone || !strings.Contains(m.flash, "select text") {
		t.Fatalf("mode %v flash %q", m.View().MouseMode, m.flash)
	}
	mm, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyF2})
	if mm.(Model).View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("f2 did not turn it back on")
	}
}

func TestFreshRootAndDefaultNotes(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	s := screen(m)
	if strings.Contains(s, "✓") || strings.Contains(s, "completed") || !strings.Contains(s, "root ○ ready") {
		t.Fatalf("fresh root:\n%s", s)
	}
	m = feed(m,
		started(child(explorerID, "explorer", "", "agent_type=explorer", 1, rootID), 2*time.Second),
		started(child(workerID, "worker", "careful", "agent_type=worker; agent_name=careful", 1, rootID), 2*time.Second),
		started(child(reviewerID, "reviewer", "", "check agent_type=x handling", 1, rootID), 2*time.Second),
	)
	s = screen(m)
	if strings.Contains(s, "agent_type=explorer") || strings.Contains(s, "agent_name=careful") || !strings.Contains(s, "check agent_type=x") {
		t.Fatalf("notes:\n%s", s)
	}
}
