// Package safefile opens files for tools that must never hang: some
// files that stat as regular (procfs, e.g. /proc/kmsg) block on read, and
// Go's poller would turn O_NONBLOCK back into a wait. Reads go straight to
// the descriptor, and "would block" is an error.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// ErrWouldBlock reports a file whose read would wait for data.
var ErrWouldBlock = errors.New("reading it would block (not an ordinary file)")

type reader struct{ fd int }

// Open opens path read-only and non-blocking.
func Open(path string) (io.ReadCloser, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &reader{fd: fd}, nil
}

func (r *reader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(r.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, ErrWouldBlock
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (r *reader) Close() error { return syscall.Close(r.fd) }

// ErrTooLarge: a bounded read met more than its bound.
var ErrTooLarge = errors.New("file too large")

// readMax reads r to its end, or fails with ErrTooLarge past max bytes
// (max < 0: no bound).
func readMax(r io.Reader, max int64) ([]byte, error) {
	if max < 0 {
		return io.ReadAll(r)
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(b)) > max {
		return nil, fmt.Errorf("more than %d bytes: %w", max, ErrTooLarge)
	}
	return b, err
}

// ReadFile reads a whole file without ever blocking on it.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadFileMax is ReadFile that fails with ErrTooLarge past max bytes.
func ReadFileMax(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readMax(f, max)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
