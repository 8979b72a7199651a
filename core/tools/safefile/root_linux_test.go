package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkNoFollow covers the lookup used where the kernel lacks openat2.
func TestWalkNoFollow(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "a", "out")); err != nil {
		t.Fatal(err)
	}
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dfd)
	fd, err := walkNoFollow(dfd, "a/b/new", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	if _, err := os.Stat(filepath.Join(dir, "a", "b", "new")); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"a/out/new", "a/out"} {
		if _, err := walkNoFollow(dfd, name, unix.O_WRONLY|unix.O_CREAT, 0o600); !errors.Is(err, ErrEscape) {
			t.Errorf("%s: err = %v, want ErrEscape", name, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("outside holds %v", entries)
	}
}
