package rollout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/grovecli/grove/protocol"
)

// The session index is a cache of what sessions/ holds: every rollout's
// session_meta and a few facts from its lines. When the index is missing,
// cut short or disagrees with sessions/ (a rollout it does not list, a path
// that no longer exists), it is rebuilt from the rollouts, which are the
// record. Nothing is ever lost by dropping the index.

// indexLockFile guards appends to and rewrites of the index across processes.
const indexLockFile = "session_index.lock"

// lockIndex takes the cross-process index lock; the returned func releases it.
func lockIndex(home string) (func(), error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	path := filepath.Join(home, indexLockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session index lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("session index lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil
}

// ReindexReport says what a check or rebuild of the index found.
type ReindexReport struct {
	Rollouts  int      // rollout files found under sessions/
	Listed    int      // distinct sessions the index listed before
	Added     int      // sessions recovered from their rollouts
	Relocated int      // entries whose rollout path was wrong and is fixed
	Rewritten bool     // the index file was replaced
	Skipped   []string // rollouts that could not be read, with why
}

// checked remembers the homes whose index was checked in this process.
var checked sync.Map

// ensureIndex checks the index against sessions/ once per process and home,
// repairing it when it disagrees. A failure to repair is not fatal: the
// index as it is still answers.
func ensureIndex(home string) {
	if _, done := checked.LoadOrStore(filepath.Clean(home), true); done {
		return
	}
	_, _ = Reindex(home, false)
}

// Reindex compares the index with the rollouts under $home/sessions and
// rewrites it (newest last, atomically) when a rollout is missing from it or
// an entry's rollout path does not resolve; force rewrites it regardless.
func Reindex(home string, force bool) (ReindexReport, error) {
	var rep ReindexReport
	files, err := rolloutFiles(home)
	if err != nil {
		return rep, err
	}
	rep.Rollouts = len(files)
	unlock, err := lockIndex(home)
	if err != nil {
		return rep, err
	}
	defer unlock()
	if !force {
		// The common case, every rollout listed, is settled from the ids
		// alone: no index line is decoded.
		listed, err := indexIDs(home)
		if err != nil {
			return rep, err
		}
		rep.Listed = len(listed)
		if !missingAny(files, listed) {
			return rep, nil
		}
	}
	latest, order, err := readIndexLatest(home)
	if err != nil {
		return rep, err
	}
	rep.Listed = len(latest)
	for id, path := range files {
		e, ok := latest[id]
		switch {
		case !ok:
			ne, err := summarize(home, path)
			if err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", path, err))
				continue
			}
			ne.Archived = inArchive(home, path)
			latest[id] = ne
			order = append(order, id)
			rep.Added++
		case !isRegular(resolvePath(home, e.RolloutPath)):
			e.RolloutPath, e.Archived = path, inArchive(home, path)
			latest[id] = e
			rep.Relocated++
		}
	}
	if rep.Added == 0 && rep.Relocated == 0 && !force {
		return rep, nil
	}
	countChildren(latest)
	if err := writeIndex(home, latest, order); err != nil {
		return rep, err
	}
	rep.Rewritten = true
	return rep, nil
}

// rolloutFiles maps each thread id to its rollout under $home/sessions or
// $home/archived_sessions, from the file names
// (rollout-<timestamp>-<id>.jsonl); only regular files count.
func rolloutFiles(home string) (map[protocol.ThreadID]string, error) {
	out := map[protocol.ThreadID]string{}
	if err := archivedFiles(home, out); err != nil {
		return nil, err
	}
	root := filepath.Join(home, sessionsDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return fs.SkipAll
			}
			return nil // an unreadable folder hides only itself
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if id, ok := idFromName(d.Name()); ok {
			out[id] = path
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	return out, nil
}

// archivedFiles adds the rollouts of $home/archived_sessions (flat) to out.
func archivedFiles(home string, out map[protocol.ThreadID]string) error {
	dir := filepath.Join(home, ArchivedDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scan %s: %w", dir, err)
	}
	for _, d := range entries {
		if id, ok := idFromName(d.Name()); ok && d.Type().IsRegular() {
			out[id] = filepath.Join(dir, d.Name())
		}
	}
	return nil
}

// rolloutPrefixLen is len("rollout-2006-01-02T15-04-05-").
const rolloutPrefixLen = len("rollout-") + len("2006-01-02T15-04-05") + 1

// idFromName extracts the thread id from a rollout file name.
func idFromName(name string) (protocol.ThreadID, bool) {
	if !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") || len(name) <= rolloutPrefixLen+len(".jsonl") {
		return "", false
	}
	return protocol.ThreadID(name[rolloutPrefixLen : len(name)-len(".jsonl")]), true
}

// readIndexLatest returns each id's latest entry and the ids in the order of
// their latest lines (oldest first), skipping torn lines.
func readIndexLatest(home string) (map[protocol.ThreadID]IndexEntry, []protocol.ThreadID, error) {
	latest := map[protocol.ThreadID]IndexEntry{}
	pos := map[protocol.ThreadID]int{}
	f, err := openRegular(filepath.Join(home, IndexFile), os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return latest, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("session index: %w", err)
	}
	defer f.Close()
	n := 0
	err = scanLines(f, func(_ int, b []byte) {
		if e, ok := parseIndexEntry(home, b); ok {
			latest[e.ID] = e
			pos[e.ID] = n
			n++
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("session index: %w", err)
	}
	order := make([]protocol.ThreadID, 0, len(latest))
	for id := range latest {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool { return pos[order[i]] < pos[order[j]] })
	return latest, order, nil
}

// countChildren sets each entry's ChildCount to the size of its subtree.
func countChildren(latest map[protocol.ThreadID]IndexEntry) {
	direct := map[protocol.ThreadID][]protocol.ThreadID{}
	for id, e := range latest {
		if e.ParentID != "" {
			direct[e.ParentID] = append(direct[e.ParentID], id)
		}
	}
	var size func(id protocol.ThreadID, seen map[protocol.ThreadID]bool) int
	size = func(id protocol.ThreadID, seen map[protocol.ThreadID]bool) int {
		n := 0
		for _, c := range direct[id] {
			if !seen[c] {
				seen[c] = true
				n += 1 + size(c, seen)
			}
		}
		return n
	}
	for id, e := range latest {
		if n := size(id, map[protocol.ThreadID]bool{id: true}); n > e.ChildCount {
			e.ChildCount = n
			latest[id] = e
		}
	}
}

// writeIndex replaces the index with one line per entry: recovered entries
// are placed by their last activity among the others, so the newest session
// is still the last line. Written to a temporary file and renamed.
func writeIndex(home string, latest map[protocol.ThreadID]IndexEntry, order []protocol.ThreadID) error {
	sort.SliceStable(order, func(i, j int) bool { return latest[order[i]].UpdatedAt.Before(latest[order[j]].UpdatedAt) })
	tmp, err := os.CreateTemp(home, IndexFile+".rebuild-*")
	if err != nil {
		return fmt.Errorf("rebuild session index: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	w := bufio.NewWriter(tmp)
	for _, id := range order {
		e := latest[id]
		e.RolloutPath = storedPath(home, e.RolloutPath)
		b, err := json.Marshal(e)
		if err != nil {
			_ = tmp.Close()
			return fmt.Errorf("rebuild session index: encode %s: %w", id, err)
		}
		_, _ = w.Write(append(b, '\n'))
	}
	err = w.Flush()
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(home, IndexFile))
	}
	if err != nil {
		return fmt.Errorf("rebuild session index %s: %w", filepath.Join(home, IndexFile), err)
	}
	return nil
}

// summarize builds an index entry from a rollout: its session_meta, the
// first user prompt, its latest note and status, and its last activity.
func summarize(home, path string) (IndexEntry, error) {
	s, err := Read(path)
	if err != nil {
		return IndexEntry{}, err
	}
	m := s.Meta
	e := IndexEntry{
		ID: m.ID, ParentID: m.ParentID, ForkedFromID: m.ForkedFromID, ThreadName: m.ThreadName, Note: m.Note, Cwd: m.Cwd,
		Model: m.Model, AgentType: m.AgentType, AgentNickname: m.AgentNickname, RolloutPath: path, UpdatedAt: m.Timestamp,
	}
	if s.NoteSet {
		e.Note = s.Note
	}
	if s.LastStatus != nil {
		e.Status = string(s.LastStatus.Kind)
	}
	e.FirstPrompt = FirstPrompt(s.Items)
	if at, ok := lastLineTime(path); ok && at.After(e.UpdatedAt) {
		e.UpdatedAt = at
	}
	if e.UpdatedAt.IsZero() {
		if st, err := os.Stat(path); err == nil {
			e.UpdatedAt = st.ModTime()
		}
	}
	if len([]rune(e.FirstPrompt)) > maxFirstPrompt {
		e.FirstPrompt = string([]rune(e.FirstPrompt)[:maxFirstPrompt]) + "…"
	}
	return e, nil
}

// lastLineTime is the timestamp of a rollout's last valid line.
func lastLineTime(path string) (time.Time, bool) {
	var at time.Time
	_ = ReverseScan(path, func(l Line) bool {
		at = l.Timestamp
		return false
	})
	return at, !at.IsZero()
}

// isRegular reports whether path is an existing regular file.
func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// idPrefix starts every index line AppendIndex writes (ID is the first field).
var idPrefix = []byte(`{"id":"`)

// indexIDs returns the ids the index lists, read from the start of each
// line (a line in another layout is decoded in full).
func indexIDs(home string) (map[protocol.ThreadID]bool, error) {
	ids := map[protocol.ThreadID]bool{}
	f, err := openRegular(filepath.Join(home, IndexFile), os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return ids, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	defer f.Close()
	err = scanLines(f, func(_ int, b []byte) {
		if rest, ok := bytes.CutPrefix(b, idPrefix); ok {
			if i := bytes.IndexByte(rest, '"'); i > 0 && bytes.IndexByte(rest[:i], '\\') < 0 && bytes.HasSuffix(b, []byte("}")) {
				ids[protocol.ThreadID(rest[:i])] = true
				return
			}
		}
		if e, ok := parseIndexEntry(home, b); ok {
			ids[e.ID] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	return ids, nil
}

// missingAny reports whether a rollout's id is not listed.
func missingAny(files map[protocol.ThreadID]string, listed map[protocol.ThreadID]bool) bool {
	for id := range files {
		if !listed[id] {
			return true
		}
	}
	return false
}
