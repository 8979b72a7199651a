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

// IndexEntry is one line of the session index: the latest summary of a
// thread. Later lines for the same id supersede earlier ones.
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

// maxFirstPrompt bounds the prompt kept in the index.
const maxFirstPrompt = 200

var indexMu sync.Mutex

// AppendIndex appends one entry with a single O_APPEND write, so lines from
// concurrent writers (goroutines or processes) never interleave.
func AppendIndex(home string, e IndexEntry) error {
	if utf8.RuneCountInString(e.FirstPrompt) > maxFirstPrompt {
		e.FirstPrompt = string([]rune(e.FirstPrompt)[:maxFirstPrompt]) + "…"
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("session index: encode: %w", err)
	}
	b = append(b, '\n')
	indexMu.Lock()
	defer indexMu.Unlock()
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(home, IndexFile), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	// After a torn last line (a killed writer), start on a fresh line.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("session index: write: %w", err)
	}
	return f.Close()
}

// scanIndexBackwards calls fn with each entry, newest line first.
func scanIndexBackwards(home string, fn func(IndexEntry) bool) error {
	f, err := os.Open(filepath.Join(home, IndexFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	defer f.Close()
	return reverseLines(f, func(b []byte) bool {
		var e IndexEntry
		if json.Unmarshal(b, &e) != nil || e.ID == "" {
			return true // torn or foreign line
		}
		return fn(e)
	})
}

// ListSessions returns root sessions, newest first: the order of each id's
// latest index line. It reads the index backwards only as far as the page
// needs.
func ListSessions(home string, offset, limit int) (entries []IndexEntry, more bool, err error) {
	if limit <= 0 {
		limit = 50
	}
	seen := map[protocol.ThreadID]bool{}
	skipped := 0
	err = scanIndexBackwards(home, func(e IndexEntry) bool {
		if seen[e.ID] {
			return true
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

// FindSession returns the latest entry of a session by id, or by a unique
// prefix or suffix of it.
func FindSession(home, idOrPrefix string) (IndexEntry, error) {
	idOrPrefix = strings.TrimSpace(idOrPrefix)
	if idOrPrefix == "" {
		return IndexEntry{}, errors.New("empty session id")
	}
	var exact *IndexEntry
	matches := map[protocol.ThreadID]IndexEntry{}
	err := scanIndexBackwards(home, func(e IndexEntry) bool {
		if string(e.ID) == idOrPrefix {
			exact = &e
			return false
		}
		// The UI shows ids by their last 8 characters, so a suffix works too.
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
		return IndexEntry{}, fmt.Errorf("no session %q in %s (see `grove sessions list`)", idOrPrefix, filepath.Join(home, IndexFile))
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
	return IndexEntry{}, fmt.Errorf("session prefix %q is ambiguous: %s", idOrPrefix, strings.Join(ids, ", "))
}

// LastSession returns the most recently updated root session.
func LastSession(home string) (IndexEntry, error) {
	entries, _, err := ListSessions(home, 0, 1)
	if err != nil {
		return IndexEntry{}, err
	}
	if len(entries) == 0 {
		return IndexEntry{}, fmt.Errorf("no sessions yet in %s", home)
	}
	return entries[0], nil
}

// Children returns the latest entry of each direct child of parent, in the
// order they first appeared (a full scan).
func Children(home string, parent protocol.ThreadID) ([]IndexEntry, error) {
	f, err := os.Open(filepath.Join(home, IndexFile))
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
		var e IndexEntry
		if len(bytes.TrimSpace(b)) == 0 || json.Unmarshal(b, &e) != nil || e.ParentID != parent || e.ID == "" {
			return
		}
		if _, ok := latest[e.ID]; !ok {
			order = append(order, e.ID)
		}
		latest[e.ID] = e
	})
	if err != nil {
		return nil, fmt.Errorf("session index: %w", err)
	}
	out := make([]IndexEntry, 0, len(order))
	for _, id := range order {
		out = append(out, latest[id])
	}
	return out, nil
}
