//go:build !linux

package safefile

import (
	"fmt"
	"io"
	"os"
)

// readPinned opens real without following a final symlink and reads at
// most limit bytes of a regular file (no openat2 here: a directory swapped
// for a symlink between the check and the open is not caught).
func readPinned(path, real string, limit int64) ([]byte, error) {
	if fi, err := os.Lstat(real); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	} else if !fi.Mode().IsRegular() {
		return nil, refused(path, "it is not a regular file")
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, refused(path, "it is not a regular file")
	}
	if fi.Size() > limit {
		return nil, refused(path, fmt.Sprintf("it is %d bytes, over the %d-byte limit", fi.Size(), limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, refused(path, fmt.Sprintf("it grew over the %d-byte limit while being read", limit))
	}
	return data, nil
}
