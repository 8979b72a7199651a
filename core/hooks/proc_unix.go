//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the hook in its own process group so that a timeout
// kills whatever it started too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
