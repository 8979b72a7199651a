package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/grovecli/grove/protocol"
)

// IndexFile is the session index's name under $GROVE_HOME.
const IndexFile = "session_index.jsonl"

// IndexEntry is one line of the session index: a thread's summary at one
// moment. Later lines for the same id supersede earlier ones, so every line
// carries the whole summary.
type IndexEntry struct {
	ID          protocol.ThreadID `json:"id"`
	ParentID    protocol.ThreadID `json:"parent_id,omitempty"`
	ThreadName  string            `json:"thread_name,omitempty"`
	Note        string            `json:"note,omitempty"`
	Cwd         string            `json:"cwd"`
	UpdatedAt   time.Time         `json:"updated_at"`
	FirstPrompt string            `json:"first_prompt,omitempty"`
	ChildCount  int               `json:"child_count"`
	RolloutPath string            `json:"rollout_path"`
	Model       string            `json:"model,omitempty"`
	AgentType   string            `json:"agent_type,omitempty"`
	Status      string            `json:"status,omitempty"`
}

// maxFirstPrompt bounds the prompt kept in the index (in runes), which
// keeps lines short enough for one atomic append.
const maxFirstPrompt = 200

// maxCandidates bounds the ids an ambiguous-prefix error lists.
const maxCandidates = 10

// indexMu serialises appends within the process; O_APPEND keeps lines of
// separate processes whole.
var indexMu sync.Mutex

// AppendIndex appends one entry to $home/session_index.jsonl with a single
// O_APPEND write, so lines from concurrent writers never interleave.
func AppendIndex(home string, e IndexEntry) error {
	if e.ID == "" {
		return errors.New("session index: entry has no id")
	}
	if utf8.RuneCountInString(e.FirstPrompt) > maxFirstPrompt {
		e.FirstPrompt = string([]rune(e.FirstPrompt)[:maxFirstPrompt]) + "…"
	}
	e.RolloutPath = storedPath(home, e.RolloutPath)
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("session index: encode %s: %w", e.ID, err)
	}
	b = append(b, '\n')
	path := filepath.Join(home, IndexFile)
	indexMu.Lock()
	defer indexMu.Unlock()
	// Locked across processes too, so a line another process is still
	// writing is never mistaken for a torn one, and a rebuild never replaces
	// the file under a writer.
	unlock, err := lockIndex(home)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := openRegular(path, os.O_CREATE|os.O_RDWR|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	// After a torn last line (a killed writer), start on a fresh line.
	if torn, err := endsTorn(f); err == nil && torn {
		b = append([]byte{'\n'}, b...)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("session index %s: write: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session index %s: %w", path, err)
	}
	return nil
}

// parseIndexEntry decodes one index line, its rollout path resolved
// against home; torn or foreign lines fail.
func parseIndexEntry(home string, b []byte) (IndexEntry, bool) {
	var e IndexEntry
	if json.Unmarshal(b, &e) != nil || e.ID == "" {
		return IndexEntry{}, false
	}
	e.RolloutPath = resolvePath(home, e.RolloutPath)
	return e, true
}

// scanIndexBackwards calls fn with each readable entry, newest line first,
// until fn returns false. A missing index has no entries.
func scanIndexBackwards(home string, fn func(IndexEntry) bool) error {
	err := reverseScan(filepath.Join(home, IndexFile), reverseBlock, func(b []byte) bool {
		e, ok := parseIndexEntry(home, b)
		return !ok || fn(e)
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	return nil
}

// ListSessions returns a page of root sessions (no parent), newest first:
// ordered by each id's latest index line, whose entry is the one returned.
// It reads the index backwards only as far as the page needs; more says
// whether further sessions follow. A missing index is an empty list.
func ListSessions(home string, offset, limit int) (entries []IndexEntry, more bool, err error) {
	if limit <= 0 {
		limit = 50
	}
	offset = max(offset, 0)
	ensureIndex(home)
	seen := map[protocol.ThreadID]bool{}
	skipped := 0
	err = scanIndexBackwards(home, func(e IndexEntry) bool {
		if seen[e.ID] {
			return true // an older line of an id already placed
		}
		seen[e.ID] = true
		if e.ParentID != "" {
			return true
		}
		if skipped < offset {
			skipped++
			return true
		}
		if len(entries) == limit {
			more = true
			return false
		}
		entries = append(entries, e)
		return true
	})
	return entries, more, err
}

// FindSession returns the latest entry of a session by its id, or by a
// unique prefix or suffix of it (the UI shows the last characters of ids).
// An ambiguous prefix is an error listing the candidates.
func FindSession(home, idOrPrefix string) (IndexEntry, error) {
	idOrPrefix = strings.TrimSpace(idOrPrefix)
	if idOrPrefix == "" {
		return IndexEntry{}, errors.New("find session: empty session id")
	}
	ensureIndex(home)
	e, err := findSession(home, idOrPrefix)
	var nf *noSessionError
	if errors.As(err, &nf) {
		// The index is a cache: a rollout written since (or whose index
		// line was lost) is found by rebuilding it from sessions/.
		if rep, rerr := Reindex(home, false); rerr == nil && rep.Rewritten {
			return findSession(home, idOrPrefix)
		}
	}
	return e, err
}

// noSessionError says no index entry matched.
type noSessionError struct{ id, index string }

func (e *noSessionError) Error() string {
	return fmt.Sprintf("no session %q in %s (see `grove sessions list`)", e.id, e.index)
}

func findSession(home, idOrPrefix string) (IndexEntry, error) {
	var exact *IndexEntry
	matches := map[protocol.ThreadID]IndexEntry{}
	err := scanIndexBackwards(home, func(e IndexEntry) bool {
		if string(e.ID) == idOrPrefix {
			exact = &e
			return false
		}
		if _, dup := matches[e.ID]; !dup && (strings.HasPrefix(string(e.ID), idOrPrefix) || strings.HasSuffix(string(e.ID), idOrPrefix)) {
			matches[e.ID] = e
		}
		return true
	})
	if err != nil {
		return IndexEntry{}, err
	}
	if exact != nil {
		return *exact, nil
	}
	switch len(matches) {
	case 0:
		return IndexEntry{}, &noSessionError{id: idOrPrefix, index: filepath.Join(home, IndexFile)}
	case 1:
		for _, e := range matches {
			return e, nil
		}
	}
	ids := make([]string, 0, len(matches))
	for id := range matches {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	list := strings.Join(ids[:min(len(ids), maxCandidates)], ", ")
	if len(ids) > maxCandidates {
		list += fmt.Sprintf(" and %d more", len(ids)-maxCandidates)
	}
	return IndexEntry{}, fmt.Errorf("session id %q is ambiguous (%d sessions match): %s", idOrPrefix, len(ids), list)
}

// LastSession returns the most recently updated root session.
func LastSession(home string) (IndexEntry, error) {
	entries, _, err := ListSessions(home, 0, 1)
	if err != nil {
		return IndexEntry{}, err
	}
	if len(entries) == 0 {
		return IndexEntry{}, fmt.Errorf("no sessions yet in %s", filepath.Join(home, IndexFile))
	}
	return entries[0], nil
}

// Children returns the latest entry of each direct child of parent, in the
// order the children first appeared (a full forward scan).
func Children(home string, parent protocol.ThreadID) ([]IndexEntry, error) {
	path := filepath.Join(home, IndexFile)
	f, err := openRegular(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	defer f.Close()
	var order []protocol.ThreadID
	latest := map[protocol.ThreadID]IndexEntry{}
	err = scanLines(f, func(_ int, b []byte) {
		if len(bytes.TrimSpace(b)) == 0 {
			return
		}
		e, ok := parseIndexEntry(home, b)
		if !ok || e.ParentID != parent {
			return
		}
		if _, seen := latest[e.ID]; !seen {
			order = append(order, e.ID)
		}
		latest[e.ID] = e
	})
	if err != nil {
		return nil, fmt.Errorf("session index %s: %w", path, err)
	}
	out := make([]IndexEntry, 0, len(order))
	for _, id := range order {
		out = append(out, latest[id])
	}
	return out, nil
}
