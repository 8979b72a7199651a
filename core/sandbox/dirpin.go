package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// DirPin is a command's working directory as it was checked (and shown in
// an approval): its resolved path and its identity. Issue 31 item 6: the
// path was resolved once to ask and again to run, so a parallel call that
// swapped ws/sub for a symlink to $HOME while the question was open made
// the approved command run in $HOME. A pinned directory is opened again
// without following any symlink (openat2 RESOLVE_NO_SYMLINKS) where the
// command starts, must be the same directory, and the command starts in
// that open descriptor — never in whatever the path names later.
type DirPin struct {
	Path     string
	Dev, Ino uint64
}

// PinDir pins dir (absolute, symlinks resolved, as CheckWorkdir returns).
func PinDir(dir string) (*DirPin, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("workdir %s: %w", dir, err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.IsDir() {
		return nil, fmt.Errorf("workdir %s is not a directory", dir)
	}
	return &DirPin{Path: dir, Dev: uint64(sys.Dev), Ino: uint64(sys.Ino)}, nil
}

// errDirChanged says a pinned directory is not where it was.
func errDirChanged(dir string, why error) error {
	return fmt.Errorf("workdir %s changed while waiting (%v): the command was not run", dir, why)
}
