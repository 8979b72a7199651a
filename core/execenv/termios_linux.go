package execenv

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the output pipe's capacity: a command printing fast waits
// on grove less often (the default is 64 KiB). Best effort: the system's
// pipe-max-size may refuse it.
const pipeSize = 1 << 20

func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}

// termSignals reads ISIG from the terminal's settings (the master reports
// the slave's).
func termSignals(fd int) bool {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil && t.Lflag&unix.ISIG != 0
}
