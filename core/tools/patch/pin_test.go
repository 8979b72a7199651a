package patch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/tools/safefile"
)

// TestWriteRefusesATreeChangedAfterPinning replays the check-then-write
// race deterministically: the paths are pinned, then a directory on the
// way is swapped for a symlink to outside. Every write must fail, roll
// back, and leave nothing outside.
func TestWriteRefusesATreeChangedAfterPinning(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes func(ws string) []Change
	}{
		{"add", func(ws string) []Change {
			return []Change{{Op: OpAdd, Path: filepath.Join(ws, "d", "new.txt"), New: "x\n"}}
		}},
		{"add in a new directory", func(ws string) []Change {
			return []Change{{Op: OpAdd, Path: filepath.Join(ws, "d", "n", "new.txt"), New: "x\n"}}
		}},
		{"update", func(ws string) []Change {
			return []Change{{Op: OpUpdate, Path: filepath.Join(ws, "d", "f.txt"), New: "y\n"}}
		}},
		{"delete", func(ws string) []Change {
			return []Change{{Op: OpDelete, Path: filepath.Join(ws, "d", "f.txt")}}
		}},
		{"move out of d", func(ws string) []Change {
			return []Change{{Op: OpUpdate, Path: filepath.Join(ws, "top.txt"), MoveTo: filepath.Join(ws, "d", "m.txt"), New: "m\n"}}
		}},
		{"second file fails, first is rolled back", func(ws string) []Change {
			return []Change{
				{Op: OpUpdate, Path: filepath.Join(ws, "top.txt"), New: "changed\n"},
				{Op: OpAdd, Path: filepath.Join(ws, "d", "new.txt"), New: "x\n"},
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			mustWrite(t, filepath.Join(ws, "top.txt"), "top\n")
			mustWrite(t, filepath.Join(ws, "d", "f.txt"), "f\n")
			mustWrite(t, filepath.Join(outside, "f.txt"), "outside\n")
			changes := tc.changes(ws)
			pins := NewPins([]string{ws})
			defer pins.Close()
			if out, err := pins.Pin(changes); err != nil || len(out) > 0 {
				t.Fatalf("Pin = %v, %v", out, err)
			}
			if err := os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "d.real")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
				t.Fatal(err)
			}
			err := Write(changes, pins)
			if !errors.Is(err, safefile.ErrEscape) || !strings.Contains(err.Error(), "no files were changed") {
				t.Fatalf("Write = %v, want an escape refused", err)
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 || entries[0].Name() != "f.txt" {
				t.Errorf("outside now holds %v", entries)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside\n" {
				t.Errorf("outside f.txt = %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "top.txt")); string(b) != "top\n" {
				t.Errorf("top.txt = %q (not rolled back)", b)
			}
		})
	}
}

// TestPinListsPathsOutsideTheRoots: a path outside every root, also one
// reached through a symlink, is reported resolved; the innermost root wins.
func TestPinListsPathsOutsideTheRoots(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	inner := filepath.Join(ws, "inner")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	pins := NewPins([]string{ws, inner})
	defer pins.Close()
	changes := []Change{
		{Op: OpAdd, Path: filepath.Join(ws, "link", "a.txt")},
		{Op: OpAdd, Path: filepath.Join(outside, "b.txt")},
		{Op: OpAdd, Path: filepath.Join(inner, "c.txt")},
	}
	out, err := pins.Pin(changes)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(outside, "a.txt") + "," + filepath.Join(outside, "b.txt")
	if got := strings.Join(out, ","); got != want {
		t.Errorf("outside = %s, want %s", got, want)
	}
	s, err := pins.spot(filepath.Join(inner, "c.txt"), false)
	if err != nil || s.Root.Path() != inner || s.Rel != "c.txt" {
		t.Errorf("spot = %+v, %v", s, err)
	}
}

func mustWrite(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
