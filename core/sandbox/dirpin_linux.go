package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// openPinned opens dir without following any symlink on the way and
// checks it is the pinned directory; the caller closes the descriptor.
func openPinned(dir string, dev, ino uint64) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	for errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
		fd, err = unix.Openat2(unix.AT_FDCWD, dir, &how)
	}
	if errors.Is(err, unix.ENOSYS) {
		// Before Linux 5.6: the last component at least, and the identity.
		fd, err = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, errDirChanged(dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return -1, errDirChanged(dir, err)
	}
	if uint64(st.Dev) != dev || st.Ino != ino {
		_ = unix.Close(fd)
		return -1, errDirChanged(dir, errors.New("another directory is there now"))
	}
	return fd, nil
}

// pinnedDirPath is the path a child chdirs to for the open descriptor fd:
// the kernel's link to that very directory.
func pinnedDirPath(fd int) string { return fmt.Sprintf("/proc/self/fd/%d", fd) }

// Check reports whether the pin still names its directory (used where the
// command is not started by a pool helper).
func (p *DirPin) Check() error {
	fd, err := openPinned(p.Path, p.Dev, p.Ino)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}
