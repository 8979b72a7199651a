package rollouttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/rollout"
)

func TestGenerateIndex(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	const n = 100
	if err := GenerateIndex(home, n); err != nil {
		t.Fatal(err)
	}
	all, more, err := rollout.ListSessions(home, 0, 1000)
	if err != nil || more || len(all) != n {
		t.Fatalf("%d sessions, more=%v, err=%v", len(all), more, err)
	}
	for i, e := range all {
		if want := SessionID(n - 1 - i); e.ID != want || e.Status != "completed" || e.ChildCount != 1 {
			t.Fatalf("entry %d: %+v, want the final update of %s", i, e, want)
		}
	}
	kids, err := rollout.Children(home, SessionID(7))
	if err != nil || len(kids) != 1 || kids[0].ParentID != SessionID(7) {
		t.Fatalf("children %+v %v", kids, err)
	}
	b, _ := os.ReadFile(filepath.Join(home, rollout.IndexFile))
	if lines := countLines(b); lines != n*4 {
		t.Fatalf("%d lines, want %d (three updates and one child per session)", lines, n*4)
	}
	if fi, err := os.Stat(filepath.Join(home, rollout.IndexFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("index mode %v %v", fi.Mode().Perm(), err)
	}
	// Regenerating replaces the index.
	if err := GenerateIndex(home, 3); err != nil {
		t.Fatal(err)
	}
	if all, _, _ := rollout.ListSessions(home, 0, 1000); len(all) != 3 {
		t.Fatalf("regenerated index has %d sessions", len(all))
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
