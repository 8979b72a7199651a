package rollout

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Recorder appends to one thread's rollout. Lines are buffered in memory
// and written by Flush (at turn boundaries and status changes). Safe for
// concurrent use.
type Recorder struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	buf    []byte
	closed bool
	now    func() time.Time
}

// Create starts a new rollout for meta and writes its session_meta line.
func Create(home string, meta SessionMeta) (*Recorder, error) {
	ts := meta.Timestamp
	if ts.IsZero() {
		ts = time.Now()
		meta.Timestamp = ts
	}
	ts = ts.UTC()
	dir := filepath.Join(home, "sessions", ts.Format("2006"), ts.Format("01"), ts.Format("02"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create rollout dir: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("rollout-%s-%s.jsonl", ts.Format("2006-01-02T15-04-05"), meta.ID))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create rollout: %w", err)
	}
	r := &Recorder{path: path, f: f, now: time.Now}
	if err := r.append(TypeSessionMeta, meta); err != nil {
		_ = f.Close()
		return nil, err
	}
	if err := r.Flush(); err != nil {
		_ = f.Close()
		return nil, err
	}
	return r, nil
}

// OpenAppend reopens an existing rollout for appending (resume). If the
// file ends in a torn line, the next line starts on a fresh line so it
// stays readable.
func OpenAppend(path string) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open rollout: %w", err)
	}
	r := &Recorder{path: path, f: f, now: time.Now}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open rollout: %w", err)
	}
	if st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
			_ = f.Close()
			return nil, fmt.Errorf("open rollout: %w", err)
		}
		if last[0] != '\n' {
			r.buf = append(r.buf, '\n')
		}
	}
	return r, nil
}

// Path is the rollout file.
func (r *Recorder) Path() string { return r.path }

// AppendItem buffers a response_item line.
func (r *Recorder) AppendItem(it protocol.Item) error { return r.append(TypeResponseItem, it) }

// AppendEvent buffers an event_msg line.
func (r *Recorder) AppendEvent(ev protocol.Event) error { return r.append(TypeEventMsg, ev) }

// AppendTurnContext buffers a turn_context line.
func (r *Recorder) AppendTurnContext(tc TurnContext) error { return r.append(TypeTurnContext, tc) }

func (r *Recorder) append(typ string, payload any) error {
	p, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("rollout %s: encode %s: %w", r.path, typ, err)
	}
	b, err := json.Marshal(Line{Timestamp: r.now().UTC(), Type: typ, Payload: p})
	if err != nil {
		return fmt.Errorf("rollout %s: encode line: %w", r.path, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("rollout %s: closed", r.path)
	}
	r.buf = append(r.buf, b...)
	r.buf = append(r.buf, '\n')
	return nil
}

// Flush writes buffered lines to the file (one write call).
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked()
}

func (r *Recorder) flushLocked() error {
	if len(r.buf) == 0 || r.f == nil {
		return nil
	}
	_, err := r.f.Write(r.buf)
	r.buf = r.buf[:0]
	if err != nil {
		return fmt.Errorf("rollout %s: write: %w", r.path, err)
	}
	return nil
}

// Sync flushes and fsyncs.
func (r *Recorder) Sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.flushLocked(); err != nil {
		return err
	}
	if r.f == nil {
		return nil
	}
	return r.f.Sync()
}

// Close flushes and closes the file; it is idempotent.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	err := r.flushLocked()
	r.closed = true
	if cerr := r.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("rollout %s: close: %w", r.path, cerr)
	}
	return err
}

// scanLines calls fn for every line of f (forward), with 1-based numbers.
func scanLines(f io.Reader, fn func(n int, b []byte)) error {
	br := bufio.NewReaderSize(f, 64<<10)
	n := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			n++
			fn(n, trimEOL(b))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
