package execenv

import "golang.org/x/sys/unix"

// termSignals reads ISIG from the terminal's settings (the master reports
// the slave's).
func termSignals(fd int) bool {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil && t.Lflag&unix.ISIG != 0
}
