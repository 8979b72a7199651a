//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// Check reports whether the pin still names its directory (no symlink at
// its last component, same identity).
func (p *DirPin) Check() error {
	st, err := os.Lstat(p.Path)
	if err != nil {
		return errDirChanged(p.Path, err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.IsDir() || uint64(sys.Dev) != p.Dev || uint64(sys.Ino) != p.Ino {
		return errDirChanged(p.Path, errors.New("another directory or a symlink is there now"))
	}
	return nil
}
