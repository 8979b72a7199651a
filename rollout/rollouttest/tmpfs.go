package rollouttest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size (e.g. "256k") on dir, a disk that can
// fill up, unmounted when the test ends; it skips where mounting is not
// permitted (not root). (rollout's own tests keep a copy: they cannot
// import this package.)
func MountTmpfs(t testing.TB, dir, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root and mount rights): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
}

// FillDisk writes to dir/filler until its file system is full; an error
// other than "no space left" is returned.
func FillDisk(dir string) error {
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}
