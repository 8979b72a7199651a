package logging

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// rotatingFile is an append-only log file that is renamed aside when a
// write would take it past maxBytes: name → name.1 → name.2 …, keeping
// keep files in all (the live one included). Safe for concurrent use.
type rotatingFile struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	keep     int
	f        *os.File
	size     int64
}

func openRotating(path string, maxBytes int64, keep int) (*rotatingFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	r := &rotatingFile{path: path, maxBytes: maxBytes, keep: max(keep, 1)}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log %s: %w", r.path, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("open log %s: %w", r.path, err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

// Write appends p (one log record) in one write call, rotating first when
// the file would outgrow maxBytes. A record larger than maxBytes still goes
// out whole, into a fresh file.
func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, fmt.Errorf("log %s is closed", r.path)
	}
	if r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		if err := r.rotate(); err != nil && r.f == nil {
			// Keep logging into the live file rather than losing records.
			if oerr := r.open(); oerr != nil {
				return 0, err
			}
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts name.(k-1) → name.k down to name → name.1; the oldest
// beyond keep is removed.
func (r *rotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		r.f = nil
		return fmt.Errorf("rotate log %s: %w", r.path, err)
	}
	r.f = nil
	if r.keep == 1 {
		_ = os.Remove(r.path)
		return r.open()
	}
	_ = os.Remove(r.backup(r.keep - 1))
	for i := r.keep - 2; i >= 1; i-- {
		if err := os.Rename(r.backup(i), r.backup(i+1)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("rotate log %s: %w", r.path, err)
		}
	}
	if err := os.Rename(r.path, r.backup(1)); err != nil {
		return fmt.Errorf("rotate log %s: %w", r.path, err)
	}
	return r.open()
}

func (r *rotatingFile) backup(i int) string {
	if i == 0 {
		return r.path
	}
	return fmt.Sprintf("%s.%d", r.path, i)
}

func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
