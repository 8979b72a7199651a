package mcp

import "syscall"

// syscallKill0 reports whether a process exists (signal 0).
func syscallKill0(pid int) error { return syscall.Kill(pid, 0) }
