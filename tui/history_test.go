package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func historyModel(t *testing.T, home, cwd string) Model {
	t.Helper()
	fb := newFake(rootInfo())
	fb.info.Home, fb.info.Cwd = home, cwd
	c := &clock{t: t0}
	m := NewModel(Options{Backend: fb, Now: c.now})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return drive(mm.(Model), m.loadHistoryCmd())
}

func TestInputHistoryPersistsPerProject(t *testing.T) {
	home := t.TempDir()
	m := historyModel(t, home, "/work/project")
	for _, s := range []string{"first question", "second, with\na newline"} {
		m = typeText(m, s)
		m = pressDrive(m, "enter")
	}
	// A new run in the same project remembers; another project does not.
	m2 := historyModel(t, home, "/work/project")
	m2, _ = press(m2, "up")
	if v := m2.composer.Value(); v != "second, with\na newline" {
		t.Fatalf("recalled %q", v)
	}
	if other := historyModel(t, home, "/work/other"); len(other.history) != 0 {
		t.Fatalf("another project sees %q", other.history)
	}
	info, err := os.Stat(historyFile(home, "/work/project"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v %v", info, err)
	}
}

func TestCtrlRSearchesHistory(t *testing.T) {
	m := historyModel(t, t.TempDir(), "/p")
	for _, s := range []string{"run the tests", "fix the parser", "run the linter"} {
		m = typeText(m, s)
		m = pressDrive(m, "enter")
	}
	m = typeText(m, "draft")
	m, _ = press(m, "ctrl+r")
	m = typeText(m, "run")
	if m.composer.Value() != "run the linter" || !strings.Contains(screen(m), "history search: run") {
		t.Fatalf("composer %q\n%s", m.composer.Value(), screen(m))
	}
	m, _ = press(m, "ctrl+r")
	if m.composer.Value() != "run the tests" {
		t.Fatalf("older match %q", m.composer.Value())
	}
	m, _ = press(m, "esc")
	if m.composer.Value() != "draft" || m.search != nil {
		t.Fatalf("esc did not restore: %q", m.composer.Value())
	}
	m, _ = press(m, "ctrl+r")
	m = typeText(m, "pars")
	m, _ = press(m, "enter") // keeps the match, does not send
	if m.composer.Value() != "fix the parser" || m.search != nil {
		t.Fatalf("enter: %q", m.composer.Value())
	}
}

func TestHistoryFileCompactsAndSkipsBadLines(t *testing.T) {
	path := historyFile(t.TempDir(), "/p")
	for i := range 2*historyCap + 10 {
		if err := appendHistory(path, fmt.Sprintf("input %d", i), t0); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString("{not json\n")
	_ = f.Close()
	lines, err := loadHistory(path)
	if err != nil || len(lines) != historyCap || lines[len(lines)-1] != fmt.Sprintf("input %d", 2*historyCap+9) {
		t.Fatalf("%d lines, err %v", len(lines), err)
	}
	again, _ := loadHistory(path)
	if len(again) != historyCap {
		t.Fatalf("file not compacted: %d", len(again))
	}
}
