//go:build !linux

package mcp

import "syscall"

// serverProcAttr puts a stdio server in its own process group (closing
// kills the group); without Pdeathsig a server may outlive a killed grove.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
