package tools

import (
	"sync"
	"time"

	"github.com/grovecli/grove/protocol"
)

// readState remembers, per thread, which files the Claude tools have Read
// and when: Claude Code's rule is that an existing file is edited or
// overwritten only after it was read in this session, and not if it
// changed on disk since.
type readState struct {
	mu    sync.Mutex
	files map[protocol.ThreadID]map[string]readStamp
}

// readStamp is a file as its last Read (or this tool's own last write)
// saw it.
type readStamp struct {
	modTime time.Time
	size    int64 // sizeUnknown for a read restored from a resumed rollout
}

// sizeUnknown is the size of a readStamp restored from a rollout, whose
// modTime is when the read ended rather than the file's own.
const sizeUnknown = -1

func newReadState() *readState {
	return &readState{files: map[protocol.ThreadID]map[string]readStamp{}}
}

// saw records that thread read (or wrote) path as it is now.
func (r *readState) saw(thread protocol.ThreadID, path string, s readStamp) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.files[thread]
	if m == nil {
		m = map[string]readStamp{}
		r.files[thread] = m
	}
	m[path] = s
}

// get returns what thread last saw of path.
func (r *readState) get(thread protocol.ThreadID, path string) (readStamp, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.files[thread][path]
	return s, ok
}

// Claude Code's answers when the rule is broken.
const (
	claudeNotRead  = "File has not been read yet. Read it first before writing to it."
	claudeModified = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)

// checkFresh is the rule: "" when thread may write path whose current
// state is now, else Claude Code's refusal.
func (r *readState) checkFresh(thread protocol.ThreadID, path string, now readStamp) string {
	seen, ok := r.get(thread, path)
	switch {
	case !ok:
		return claudeNotRead
	case now.modTime.After(seen.modTime) || (seen.size != sizeUnknown && now.size != seen.size):
		return claudeModified
	}
	return ""
}
