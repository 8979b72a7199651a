package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Recorder appends to one thread's rollout. Each line is written to the
// file as it is appended, in one write call, so a kill -9 loses at most the
// line being written (the reader skips a torn last line). Nothing is
// fsynced on that path: Sync does it, at turn ends. Safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	path string
	f    *os.File
	buf  []byte // encoded lines not yet written (after a failed write)
	// size is where the last whole line ends: a failed write is cut back
	// to it, so the file never ends in a torn line of ours.
	size    int64
	pending int   // lines in buf (not on disk)
	failed  error // the first write failure not yet made good, if any
	closed  bool
	now     func() time.Time
}

// maxIdleBuffer is the buffer capacity kept between writes; a larger one
// (after a huge tool output) is released.
const maxIdleBuffer = 1 << 20

// CreatePending is Create for a thread that may never get a message: the
// session_meta line and any events are kept in memory, and the file is
// created when Materialize is called or the first item (a message) is
// appended. Closed before then, it leaves nothing on disk, as Codex's
// thread/start writes no rollout before the first user message.
func CreatePending(home string, meta SessionMeta) (*Recorder, error) {
	path, err := newRolloutPath(home, &meta)
	if err != nil {
		return nil, err
	}
	r := &Recorder{path: path, now: time.Now}
	if err := r.append(TypeSessionMeta, meta); err != nil {
		return nil, err
	}
	return r, nil
}

// newRolloutPath names meta's rollout (stamping meta.Timestamp if unset).
func newRolloutPath(home string, meta *SessionMeta) (string, error) {
	if err := checkID(meta.ID); err != nil {
		return "", fmt.Errorf("create rollout: %w", err)
	}
	if meta.Timestamp.IsZero() {
		meta.Timestamp = time.Now()
	}
	ts := meta.Timestamp.UTC()
	dir := filepath.Join(home, "sessions", ts.Format("2006"), ts.Format("01"), ts.Format("02"))
	return filepath.Join(dir, fmt.Sprintf("rollout-%s-%s.jsonl", ts.Format("2006-01-02T15-04-05"), meta.ID)), nil
}

// openNew creates and locks a new rollout file at path.
func openNew(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create rollout dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create rollout: %w", err)
	}
	if err := lockWriter(f, path); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("create rollout: %w", err)
	}
	return f, nil
}

// Materialize creates a pending rollout's file and writes the lines kept
// so far; it does nothing for a rollout already on disk.
func (r *Recorder) Materialize() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.materializeLocked()
}

func (r *Recorder) materializeLocked() error {
	if r.f != nil || r.closed {
		return nil
	}
	f, err := openNew(r.path)
	if err != nil {
		return err
	}
	r.f = f
	if err := r.flushLocked(); err != nil {
		// A rollout without its session_meta could never be read back.
		_ = f.Close()
		_ = os.Remove(r.path)
		r.f = nil
		return err
	}
	return nil
}

// Materialized reports whether the rollout is on disk (false for a
// CreatePending rollout before its first message).
func (r *Recorder) Materialized() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f != nil
}

// Create starts a new rollout for meta at
// $home/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<id>.jsonl (UTC,
// from meta.Timestamp or now), and writes and flushes its session_meta line.
func Create(home string, meta SessionMeta) (*Recorder, error) {
	path, err := newRolloutPath(home, &meta)
	if err != nil {
		return nil, err
	}
	f, err := openNew(path)
	if err != nil {
		return nil, err
	}
	r := &Recorder{path: path, f: f, now: time.Now}
	err = r.append(TypeSessionMeta, meta)
	if err == nil {
		err = r.Flush()
	}
	if err != nil {
		// A rollout without its session_meta could never be read back.
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	return r, nil
}

// checkID rejects ids that cannot name a file.
func checkID(id protocol.ThreadID) error {
	switch {
	case id == "":
		return errors.New("session_meta has no id")
	case strings.ContainsAny(string(id), `/\`+"\x00") || id == "." || id == "..":
		return fmt.Errorf("thread id %q cannot be part of a file name", id)
	}
	return nil
}

// OpenAppend reopens an existing rollout for appending (resume). If the
// file ends in a torn line (the writer was killed mid-line), the next line
// starts on a fresh line so that it stays readable.
func OpenAppend(path string) (*Recorder, error) {
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("open rollout: %w", err)
	}
	// One live writer per session: a second grove resuming it is refused
	// (LockedError names the holder); the kernel drops the lock with its
	// holder, so a dead process never leaves a stale one.
	if err := lockWriter(f, path); err != nil {
		_ = f.Close()
		return nil, err
	}
	r := &Recorder{path: path, f: f, now: time.Now}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open rollout %s: %w", path, err)
	}
	r.size = st.Size()
	torn, err := endsTorn(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open rollout %s: %w", path, err)
	}
	if torn {
		// Prepended to the next line's write.
		r.buf = append(r.buf, '\n')
	}
	return r, nil
}

// endsTorn reports whether f is non-empty and does not end with a newline.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return last[0] != '\n', nil
}

// Path is the rollout file.
func (r *Recorder) Path() string { return r.path }

// AppendItem writes a response_item line.
func (r *Recorder) AppendItem(it protocol.Item) error { return r.append(TypeResponseItem, it) }

// AppendEvent writes an event_msg line (the payload is the event's JSON).
func (r *Recorder) AppendEvent(ev protocol.Event) error { return r.append(TypeEventMsg, ev) }

// AppendTurnContext writes a turn_context line.
func (r *Recorder) AppendTurnContext(tc TurnContext) error { return r.append(TypeTurnContext, tc) }

// AppendCompacted records a compaction: a reader rebuilds the history from
// c.ReplacementHistory instead of the items written before it.
func (r *Recorder) AppendCompacted(c Compacted) error { return r.append(TypeCompacted, c) }

func (r *Recorder) append(typ string, payload any) error {
	p, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("rollout %s: encode %s: %w", r.path, typ, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("rollout %s: append %s after close", r.path, typ)
	}
	// Stamped under the lock so timestamps follow line order.
	ts, err := r.now().UTC().MarshalJSON()
	if err != nil {
		return fmt.Errorf("rollout %s: encode %s timestamp: %w", r.path, typ, err)
	}
	// The Line encoding, assembled by hand: p is already valid JSON and
	// json.Marshal would scan it again.
	r.buf = append(r.buf, `{"timestamp":`...)
	r.buf = append(r.buf, ts...)
	r.buf = append(r.buf, `,"type":"`...)
	r.buf = append(r.buf, typ...)
	r.buf = append(r.buf, `","payload":`...)
	r.buf = append(r.buf, p...)
	r.buf = append(r.buf, "}\n"...)
	r.pending++
	if r.f == nil && (typ == TypeResponseItem || typ == TypeCompacted) {
		// A pending rollout's first message puts it on disk.
		return r.materializeLocked()
	}
	// Written now, not at the turn's end: a crash must not take the lines
	// of the running turn with it. A failed write keeps the bytes for the
	// next append or Flush.
	return r.flushLocked()
}

// Flush writes any lines a failed write left behind, in one write call. It
// does not fsync (see Sync).
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked()
}

func (r *Recorder) flushLocked() error {
	if len(r.buf) == 0 || r.f == nil {
		// Nothing to write, or a pending rollout keeps its lines.
		return nil
	}
	n, err := r.f.Write(r.buf)
	if err != nil {
		// A full disk (or any failed write) must not leave a torn line:
		// cut the file back to its last whole line and keep every pending
		// line for the next try, so the file stays a consistent prefix.
		if n > 0 {
			if terr := r.f.Truncate(r.size); terr != nil {
				r.buf = r.buf[:copy(r.buf, r.buf[n:])] // cannot cut: continue the stream instead
				r.size += int64(n)
			}
		}
		werr := &WriteError{Path: r.path, Pending: r.pending, Err: err}
		if r.failed == nil {
			r.failed = werr
		}
		return werr
	}
	r.size += int64(n)
	r.pending, r.failed = 0, nil
	if cap(r.buf) > maxIdleBuffer {
		r.buf = nil
	} else {
		r.buf = r.buf[:0]
	}
	return nil
}

// Sync flushes and fsyncs the file.
func (r *Recorder) Sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("rollout %s: sync after close", r.path)
	}
	if err := r.flushLocked(); err != nil || r.f == nil {
		return err
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("rollout %s: sync: %w", r.path, err)
	}
	return nil
}

// Failed returns the write failure that left lines unrecorded, nil once
// every line is on disk again.
func (r *Recorder) Failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Close flushes, fsyncs and closes the file; it is idempotent.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.f == nil {
		// A pending rollout closed before its first message: no file.
		r.buf = nil
		return nil
	}
	err := r.flushLocked()
	r.buf = nil
	if err == nil {
		if serr := r.f.Sync(); serr != nil {
			err = fmt.Errorf("rollout %s: sync: %w", r.path, serr)
		}
	}
	if cerr := r.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("rollout %s: close: %w", r.path, cerr)
	}
	return err
}
