package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestExportWritesTheFocusedTranscript(t *testing.T) {
	dir := t.TempDir()
	fb := newFake(rootInfo())
	fb.info.Cwd = dir
	c := &clock{t: t0}
	mm, _ := NewModel(Options{Backend: fb, Now: c.now}).Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m := feed(mm.(Model), treeScenario()...)
	m = typeText(m, "/export notes/run.md")
	m = pressDrive(m, "enter")
	// notes/ does not exist: a clear error, nothing written.
	if !strings.HasPrefix(m.flash, "export: ") || !strings.Contains(m.flash, "no such file") {
		t.Fatalf("flash %q", m.flash)
	}
	m = typeText(m, "/export run.md")
	m = pressDrive(m, "enter")
	path := filepath.Join(dir, "run.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (flash %q)", err, m.flash)
	}
	for _, want := range []string{"# root", "> Fix the flaky date parser and add tests", "**exec_command** `$ go test ./pkg/when/...`", "ok  \tpkg/when\t0.012s", "**wait**"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("export lacks %q:\n%s", want, b)
		}
	}
	if m.flash != "transcript written to "+path {
		t.Fatalf("flash %q", m.flash)
	}
	// Never over an existing file.
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = typeText(m, "/export run.md")
	m = pressDrive(m, "enter")
	if b, _ := os.ReadFile(path); string(b) != "mine" || !strings.Contains(m.flash, "exists") {
		t.Fatalf("overwrote: %q flash %q", b, m.flash)
	}
}
