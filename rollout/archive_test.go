package rollout

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// archiveTree stores a root with a child and a grandchild (Codex:
// thread_archive.rs thread_archive_archives_spawned_descendants) and
// returns their ids and rollout paths, root first.
func archiveTree(t *testing.T, home string) ([]protocol.ThreadID, []string) {
	t.Helper()
	ids := []protocol.ThreadID{protocol.NewThreadID(), protocol.NewThreadID(), protocol.NewThreadID()}
	var paths []string
	for i, id := range ids {
		m := testMeta(id)
		if i > 0 {
			m.ParentID, m.Depth, m.Source = ids[i-1], i, protocol.SourceSpawned
		}
		r, err := Create(home, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.AppendItem(protocol.Item{Type: protocol.ItemMessage, Role: protocol.RoleUser, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, r.Path())
		if err := AppendIndex(home, IndexEntry{ID: id, ParentID: m.ParentID, Cwd: "/w", RolloutPath: r.Path(), UpdatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	return ids, paths
}

// TestArchiveMovesTheTreeAndBack: the root and its descendants move into
// archived_sessions/ (names kept), deepest first, out of the listings;
// unarchive puts each back where it was and lists the root again.
func TestArchiveMovesTheTreeAndBack(t *testing.T) {
	home := t.TempDir()
	ids, paths := archiveTree(t, home)
	moved, err := Archive(home, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 3 || moved[0].ID != ids[2] || moved[1].ID != ids[1] || moved[2].ID != ids[0] {
		t.Fatalf("archived %v, want grandchild, child, root", moved)
	}
	for i, p := range paths {
		want := filepath.Join(home, ArchivedDir, filepath.Base(p))
		if fileExists(p) || !fileExists(want) {
			t.Fatalf("%s: not moved to %s", p, want)
		}
		e, err := FindSession(home, string(ids[i]))
		if err != nil || !e.Archived || e.RolloutPath != want {
			t.Fatalf("index entry %+v %v", e, err)
		}
	}
	if list, _, _ := ListSessions(home, 0, 10); len(list) != 0 {
		t.Fatalf("an archived session is listed: %v", list)
	}
	if _, err := LastSession(home); err == nil {
		t.Fatal("--last found an archived session")
	}
	if _, err := Unarchive(home, ids[0]); err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		if e, err := FindSession(home, string(ids[i])); err != nil || e.Archived || e.RolloutPath != p || !fileExists(p) {
			t.Fatalf("unarchived %+v %v, want %s", e, err, p)
		}
	}
	if list, _, _ := ListSessions(home, 0, 10); len(list) != 1 || list[0].ID != ids[0] {
		t.Fatalf("listing after unarchive: %v", list)
	}
}

// TestArchiveRefusesAHeldRollout: a session another grove is writing (its
// writer lock held) is not moved, nor is any of its tree.
func TestArchiveRefusesAHeldRollout(t *testing.T) {
	home := t.TempDir()
	ids, paths := archiveTree(t, home)
	f, err := os.OpenFile(paths[1], os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lockWriter(f, paths[1]); err != nil {
		t.Fatal(err)
	}
	_, err = Archive(home, ids[0])
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("archive of a held tree: %v, want a LockedError", err)
	}
	for _, p := range paths {
		if !fileExists(p) {
			t.Fatalf("%s moved", p)
		}
	}
}

// TestArchiveFailsWhenADescendantIsMissing (Codex: thread_archive.rs
// thread_archive_fails_when_spawned_descendant_is_missing): nothing moves.
func TestArchiveFailsWhenADescendantIsMissing(t *testing.T) {
	home := t.TempDir()
	ids, paths := archiveTree(t, home)
	if err := os.Remove(paths[2]); err != nil {
		t.Fatal(err)
	}
	if _, err := Archive(home, ids[0]); !IsNoSession(err) {
		t.Fatalf("archive with a missing descendant: %v", err)
	}
	if !fileExists(paths[0]) || !fileExists(paths[1]) {
		t.Fatal("part of the tree moved")
	}
}

// TestReindexKeepsArchivedSessions: an index rebuilt from the files finds
// archived rollouts too, marked archived.
func TestReindexKeepsArchivedSessions(t *testing.T) {
	home := t.TempDir()
	ids, _ := archiveTree(t, home)
	if _, err := Archive(home, ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(home, IndexFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Reindex(home, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if e, err := FindSession(home, string(id)); err != nil || !e.Archived {
			t.Fatalf("rebuilt entry of %s: %+v %v", id, e, err)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
