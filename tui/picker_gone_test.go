package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// TestPickerMarksDeletedDirectories: a session whose working directory
// was removed says so in the picker; one whose directory exists does not.
func TestPickerMarksDeletedDirectories(t *testing.T) {
	home, kept := t.TempDir(), t.TempDir()
	removed := filepath.Join(t.TempDir(), "gone-project")
	if err := os.Mkdir(removed, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range []rollout.IndexEntry{
		{ID: protocol.ThreadID("00000000-0000-7000-8000-000000000001"), Cwd: removed, UpdatedAt: t0, FirstPrompt: "in the removed one"},
		{ID: protocol.ThreadID("00000000-0000-7000-8000-000000000002"), Cwd: kept, UpdatedAt: t0.Add(time.Minute), FirstPrompt: "in the kept one"},
	} {
		if err := rollout.AppendIndex(home, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(removed); err != nil {
		t.Fatal(err)
	}
	p := newPicker(home, func() time.Time { return t0.Add(time.Hour) })
	p.update(p.load()())
	r := &renderer{th: newTheme(), now: p.now}
	var removedRow, keptRow string
	for _, l := range p.view(r, 200, 20) {
		l = ansiStrip(l)
		if strings.Contains(l, "in the removed one") {
			removedRow = l
		}
		if strings.Contains(l, "in the kept one") {
			keptRow = l
		}
	}
	if !strings.Contains(removedRow, "✗ deleted") || keptRow == "" || strings.Contains(keptRow, "deleted") {
		t.Fatalf("removed row %q, kept row %q", removedRow, keptRow)
	}
}
