package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sjson "github.com/segmentio/encoding/json"

	"github.com/grovecli/grove/protocol"
)

// IndexFile is the session index's name under $GROVE_HOME.
const IndexFile = "session_index.jsonl"

// IndexEntry is one line of the session index: a thread's summary at one
// moment. Later lines for the same id supersede earlier ones, so every line
// carries the whole summary.
type IndexEntry struct {
	ID         protocol.ThreadID `json:"id"`
	ParentID   protocol.ThreadID `json:"parent_id,omitempty"`
	ThreadName string            `json:"thread_name,omitempty"`
	// ForkedFromID is the session a fork copied.
	ForkedFromID protocol.ThreadID `json:"forked_from_id,omitempty"`
	Note         string            `json:"note,omitempty"`
	Cwd          string            `json:"cwd"`
	UpdatedAt    time.Time         `json:"updated_at"`
	FirstPrompt  string            `json:"first_prompt,omitempty"`
	ChildCount   int               `json:"child_count"`
	RolloutPath  string            `json:"rollout_path"`
	Model        string            `json:"model,omitempty"`
	// Provider is the model provider's name (thread/list's modelProvider).
	Provider string `json:"model_provider,omitempty"`
	// Archived threads are listed only when asked for (thread/archive).
	Archived  bool   `json:"archived,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	// AgentNickname is a sub-agent's nickname (SessionMeta's).
	AgentNickname string `json:"agent_nickname,omitempty"`
	Status        string `json:"status,omitempty"`
	// Root is a sub-agent's root thread as ListThreadsWhere resolved it
	// (never written: a line names only the parent).
	Root protocol.ThreadID `json:"-"`
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

// leadingID reads the id of an index line written by AppendIndex, whose
// JSON starts with it ({"id":"…",); false for any other shape (the line is
// then decoded in full).
func leadingID(b []byte) ([]byte, bool) {
	const prefix = `{"id":"`
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return nil, false
	}
	rest := b[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	return rest[:end], true
}

// hasParent reports whether an index line written by AppendIndex is a
// sub-agent's: parent_id follows the id.
func hasParent(b []byte) bool {
	const prefix = `{"id":"`
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return false
	}
	end := bytes.IndexByte(b[len(prefix):], '"')
	return end > 0 && bytes.HasPrefix(b[len(prefix)+end:], []byte(`","parent_id":"`))
}

// parseIndexEntry decodes one index line, its rollout path resolved
// against home; torn or foreign lines fail. segmentio's decoder (already
// linked in through the MCP SDK) is a drop-in for encoding/json that
// decodes an index line about 5× faster: the picker's filter decodes
// every session of the index (100,000 lines in a big home).
func parseIndexEntry(home string, b []byte) (IndexEntry, bool) {
	var e IndexEntry
	if sjson.Unmarshal(b, &e) != nil || e.ID == "" {
		return IndexEntry{}, false
	}
	e.RolloutPath = resolvePath(home, e.RolloutPath)
	return e, true
}

// scanIndexBackwards calls fn with each readable entry, newest line first,
// until fn returns false. A missing index has no entries.
func scanIndexBackwards(home string, fn func(IndexEntry) bool) error {
	return scanIndexBackwardsSkipping(home, nil, fn)
}

// scanIndexBackwardsSkipping is scanIndexBackwards that does not decode a
// line whose id skip reports (an older line of an id already seen): most
// lines of a big index are such updates, and the id is read without
// decoding the line.
func scanIndexBackwardsSkipping(home string, skip func(id []byte, child bool) bool, fn func(IndexEntry) bool) error {
	err := reverseScan(filepath.Join(home, IndexFile), reverseBlock, func(b []byte) bool {
		if skip != nil {
			if id, ok := leadingID(b); ok && skip(id, hasParent(b)) {
				return true
			}
		}
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
	return listSessions(nil, home, offset, limit, false, nil)
}

// ListSessionsWhere is ListSessions over the root sessions keep accepts
// (exec resume --last in one directory, thread/list's filters); offset
// counts accepted sessions.
func ListSessionsWhere(home string, offset, limit int, keep func(IndexEntry) bool) (entries []IndexEntry, more bool, err error) {
	if limit <= 0 {
		limit = 50
	}
	return listSessions(nil, home, offset, limit, false, keep)
}

// ListThreadsWhere is ListSessionsWhere over sub-agents' threads too (keep
// tells them by ParentID): thread/list's sourceKinds filter asks for them.
// A sub-agent's entry comes with its Root, and Archived is its root's: a
// tree is archived as a whole (lineage.go).
func ListThreadsWhere(home string, offset, limit int, keep func(IndexEntry) bool) (entries []IndexEntry, more bool, err error) {
	if limit <= 0 {
		limit = 50
	}
	return listSessions(nil, home, offset, limit, true, keep)
}

// ListAllSessions is ListSessions without a limit: every root session
// after the first offset, in one pass over the index (the picker's filter
// searches them all).
func ListAllSessions(home string, offset int) ([]IndexEntry, error) {
	return AppendAllSessions(nil, home, offset)
}

// AppendAllSessions is ListAllSessions appending to dst, so a caller that
// holds the first sessions already gets the whole list without another
// copy of it (100,000 entries are 19 MB).
func AppendAllSessions(dst []IndexEntry, home string, offset int) ([]IndexEntry, error) {
	entries, _, err := listSessions(dst, home, offset, -1, false, nil)
	return entries, err
}

// listSessions appends the page to dst; limit < 0 means no limit;
// children lists sub-agents' threads as well as root sessions.
func listSessions(dst []IndexEntry, home string, offset, limit int, children bool, keep func(IndexEntry) bool) (entries []IndexEntry, more bool, err error) {
	offset = max(offset, 0)
	ensureIndex(home)
	seen := make(map[string]bool, seenHint(home, limit))
	skipped := 0
	// Lines of ids already placed, and sub-agents' lines, are not decoded
	// (the lookup by the line's bytes allocates nothing). A sub-agent's id
	// is not remembered: all its lines are a sub-agent's (a thread's parent
	// never changes), and half the ids of a home are sub-agents'.
	skip := func(id []byte, child bool) bool {
		return (child && !children) || seen[string(id)]
	}
	var tree *lineage
	if children {
		tree = newLineage(home)
		defer tree.close()
	}
	var found entryChunks
	err = scanIndexBackwardsSkipping(home, skip, func(e IndexEntry) bool {
		if seen[string(e.ID)] {
			return true // an older line of an id already placed
		}
		seen[string(e.ID)] = true
		if tree != nil {
			tree.note(e)
			if e.ParentID != "" {
				e.Root, e.Archived = tree.root(e)
			}
		}
		if (e.ParentID != "" && !children) || (keep != nil && !keep(e)) {
			return true
		}
		if skipped < offset {
			skipped++
			return true
		}
		if limit >= 0 && found.n == limit {
			more = true
			return false
		}
		found.add(e)
		return true
	})
	return found.appendTo(dst), more, err
}

// seenHint sizes the map of ids a listing remembers: a whole listing
// remembers every root session, about one per 1 KB of index (a map
// growing to 100,000 ids rehashes itself over and over); a page only its
// own.
func seenHint(home string, limit int) int {
	if limit >= 0 {
		return 0
	}
	st, err := os.Stat(filepath.Join(home, IndexFile))
	if err != nil {
		return 0
	}
	return int(min(st.Size()/1024, 1<<20))
}

// entryChunks collects entries in chunks and joins them once at the end:
// growing one slice to 100,000 entries by doubling copies twice their 19
// MB, and every entry holds pointers (a GC write barrier per word).
type entryChunks struct {
	full [][]IndexEntry
	cur  []IndexEntry
	n    int
}

func (c *entryChunks) add(e IndexEntry) {
	if len(c.cur) == cap(c.cur) {
		size := 64 // pages are short; a whole index grows to 4,096-entry chunks
		if c.cur != nil {
			c.full = append(c.full, c.cur)
			size = min(2*cap(c.cur), 4096)
		}
		c.cur = make([]IndexEntry, 0, size)
	}
	c.cur = append(c.cur, e)
	c.n++
}

func (c *entryChunks) appendTo(dst []IndexEntry) []IndexEntry {
	if c.n == 0 {
		return dst
	}
	dst = slices.Grow(dst, c.n)
	for _, chunk := range c.full {
		dst = append(dst, chunk...)
	}
	return append(dst, c.cur...)
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

// IsNoSession reports whether err is FindSession's "no such session".
func IsNoSession(err error) bool {
	var nf *noSessionError
	return errors.As(err, &nf)
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
	return LastSessionWhere(home, nil)
}

// LastSessionIn returns the most recently updated root session started
// in dir (Codex's `exec resume --last`, filtered by the current
// directory).
func LastSessionIn(home, dir string) (IndexEntry, error) {
	e, err := LastSessionWhere(home, func(e IndexEntry) bool { return samePath(e.Cwd, dir) })
	if err != nil {
		return e, fmt.Errorf("no session in %s yet (--all: the most recent of every directory): %w", dir, err)
	}
	return e, nil
}

// samePath compares two directories after cleaning and resolving links.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false // no link resolution for entries that cannot match
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// LastSessionWhere returns the most recently updated root session keep
// accepts (nil: any).
func LastSessionWhere(home string, keep func(IndexEntry) bool) (IndexEntry, error) {
	entries, _, err := ListSessionsWhere(home, 0, 1, keep)
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
