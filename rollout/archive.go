package rollout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/grovecli/grove/protocol"
)

// ArchivedDir is the folder archived rollouts move to under a grove home:
// flat, each file keeping its name (Codex's archived_sessions under
// CODEX_HOME). An archived session is out of the listings, the picker and
// --last, and is not resumed or forked until it is unarchived.
const ArchivedDir = "archived_sessions"

// ArchivedError refuses to continue an archived session (Codex:
// thread_resume.rs thread_resume_rejects_archived_session_by_id).
type ArchivedError struct{ ID protocol.ThreadID }

func (e *ArchivedError) Error() string {
	return fmt.Sprintf("session %s is archived; run `grove unarchive %s` to unarchive it first", e.ID, e.ID)
}

// IsArchived reports whether err is an ArchivedError.
func IsArchived(err error) bool {
	var ae *ArchivedError
	return errors.As(err, &ae)
}

// inArchive reports whether a rollout path lies in home's ArchivedDir.
func inArchive(home, path string) bool {
	rel, ok := within(filepath.Join(home, ArchivedDir), path)
	return ok && !strings.Contains(rel, string(filepath.Separator))
}

// Archive moves the rollouts of session id and of every thread it spawned
// (its sub-agents, theirs, …) into ArchivedDir and records them archived
// in the index. It returns the moved threads deepest first, the session
// last (the order Codex sends thread/archived). A rollout another process
// (or another session of this one) is writing is a LockedError and a
// missing one a "no session" error; either way nothing moves.
func Archive(home string, id protocol.ThreadID) ([]IndexEntry, error) {
	return moveTree(home, id, true)
}

// Unarchive moves an archived session's rollouts back to
// sessions/YYYY/MM/DD (the date of each file's name) and records them
// live again; the entries come back in Archive's order.
func Unarchive(home string, id protocol.ThreadID) ([]IndexEntry, error) {
	return moveTree(home, id, false)
}

// moveTree moves the rollouts of id's subtree into or out of ArchivedDir
// under each file's writer lock, so no grove appends to a file being
// moved; a failed move puts back the ones already moved.
func moveTree(home string, id protocol.ThreadID, archive bool) ([]IndexEntry, error) {
	tree, err := subtree(home, id)
	if err != nil {
		return nil, err
	}
	var locks []*os.File
	defer func() {
		for _, f := range locks {
			_ = f.Close()
		}
	}()
	dsts := make([]string, len(tree))
	for i, e := range tree {
		f, err := lockForMove(e)
		if err != nil {
			return nil, err
		}
		locks = append(locks, f)
		dsts[i] = e.RolloutPath
		if inArchive(home, e.RolloutPath) == archive {
			continue
		}
		if dsts[i], err = movedPath(home, e.RolloutPath, archive); err != nil {
			return nil, err
		}
	}
	for i, e := range tree {
		if dsts[i] == e.RolloutPath {
			continue // already where it goes (a half-done earlier move)
		}
		if err := renameNew(e.RolloutPath, dsts[i]); err != nil {
			for j := i - 1; j >= 0; j-- {
				if dsts[j] != tree[j].RolloutPath {
					_ = os.Rename(dsts[j], tree[j].RolloutPath)
				}
			}
			return nil, err
		}
	}
	now := time.Now()
	for i := range tree {
		tree[i].RolloutPath, tree[i].Archived, tree[i].UpdatedAt = dsts[i], archive, now
		// The rollout's time is the thread's updatedAt where the index is
		// rebuilt from the files (Codex bumps it on unarchive).
		_ = os.Chtimes(dsts[i], now, now)
		if err := AppendIndex(home, tree[i]); err != nil {
			return nil, err
		}
	}
	return tree, nil
}

// subtree is id's latest entry and its descendants', deepest first. Each
// must have its rollout on disk.
func subtree(home string, id protocol.ThreadID) ([]IndexEntry, error) {
	ensureIndex(home)
	latest, order, err := readIndexLatest(home)
	if err != nil {
		return nil, err
	}
	root, ok := latest[id]
	if !ok {
		return nil, &noSessionError{id: string(id), index: filepath.Join(home, IndexFile)}
	}
	children := map[protocol.ThreadID][]protocol.ThreadID{}
	for _, cid := range order {
		if p := latest[cid].ParentID; p != "" {
			children[p] = append(children[p], cid)
		}
	}
	// Siblings in id order (spawn order for the engine's UUIDv7 ids):
	// thread/archive announces them so, as Codex does.
	for _, kids := range children {
		slices.Sort(kids)
	}
	var out []IndexEntry
	var walk func(e IndexEntry, depth int) error
	walk = func(e IndexEntry, depth int) error {
		if depth > 64 {
			return fmt.Errorf("session %s: the sub-agent tree is deeper than 64 (a parent cycle in the index?)", id)
		}
		for _, cid := range children[e.ID] {
			if err := walk(latest[cid], depth+1); err != nil {
				return err
			}
		}
		if !isRegular(e.RolloutPath) {
			return &noSessionError{id: string(e.ID), index: filepath.Join(home, IndexFile)}
		}
		out = append(out, e)
		return nil
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// lockForMove takes e's rollout writer lock without waiting: a held lock
// is the LockedError a second resume gets.
func lockForMove(e IndexEntry) (*os.File, error) {
	f, err := openRegular(e.RolloutPath, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", e.ID, err)
	}
	if err := lockWriter(f, e.RolloutPath); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// movedPath is where a rollout goes: ArchivedDir with its name, or back to
// sessions/YYYY/MM/DD from the timestamp in its name.
func movedPath(home, path string, archive bool) (string, error) {
	name := filepath.Base(path)
	if archive {
		return filepath.Join(home, ArchivedDir, name), nil
	}
	if _, ok := idFromName(name); !ok {
		return "", fmt.Errorf("unarchive %s: not a rollout file name", path)
	}
	ts, err := time.Parse("2006-01-02T15-04-05", name[len("rollout-"):rolloutPrefixLen-1])
	if err != nil {
		return "", fmt.Errorf("unarchive %s: no date in the file name: %w", path, err)
	}
	return filepath.Join(home, sessionsDir, ts.Format("2006"), ts.Format("01"), ts.Format("02"), name), nil
}

// renameNew moves src to dst, refusing to replace a file already there.
func renameNew(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("move rollout: %w", err)
	}
	// A hard link fails when dst exists, where a rename would replace it.
	if err := os.Link(src, dst); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("move rollout %s: %s already exists", src, dst)
		}
		if !errors.Is(err, syscall.EXDEV) && !errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("move rollout %s: %w", src, err)
		}
		if _, serr := os.Lstat(dst); serr == nil {
			return fmt.Errorf("move rollout %s: %s already exists", src, dst)
		}
		return os.Rename(src, dst)
	}
	if err := os.Remove(src); err != nil {
		_ = os.Remove(dst)
		return fmt.Errorf("move rollout %s: %w", src, err)
	}
	return nil
}
