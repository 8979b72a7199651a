//go:build linux

package mcp

import "syscall"

// serverProcAttr puts a stdio server in its own process group (closing
// kills the group) and asks the kernel to kill it if grove itself dies.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
