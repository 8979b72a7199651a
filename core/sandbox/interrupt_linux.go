//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// commandSignals carries interrupts for one pooled command to the thread
// that started it (with namespaces only that thread may signal it, see
// startIsolated), and remembers an interrupt the helper had to emulate.
type commandSignals struct {
	ch chan string
	// emulated is set when the helper ended the command with SIGKILL in
	// place of an ignored SIGINT: its exit code is then reported as 130.
	emulated atomic.Bool
}

func newCommandSignals() *commandSignals { return &commandSignals{ch: make(chan string, 4)} }

// send queues an interrupt; one beyond a full queue is dropped (the queued
// ones do the same).
func (c *commandSignals) send(what string) {
	select {
	case c.ch <- what:
	default:
	}
}

// deliver runs on the command's thread. The command is PID 1 of its own
// PID namespace, and the kernel drops a signal to such a process unless
// it has a handler: SIGINT (from kill or typed on its terminal) would be
// lost on `sleep` or `cat`. When its SIGINT disposition is the default,
// the helper does what the default would, terminating it; a handler (a
// shell, python's KeyboardInterrupt) or an ignored SIGINT is respected.
func (c *commandSignals) deliver(pid int, what string) {
	if what == poolSignalGroup {
		_ = syscall.Kill(-pid, syscall.SIGINT)
	}
	if sigintDefault(pid) {
		c.emulated.Store(true)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// sigintDefault reports whether pid neither catches nor ignores SIGINT
// (/proc/PID/status, SigCgt and SigIgn: bit N-1 for signal N).
func sigintDefault(pid int) bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	defer f.Close()
	const bit = uint64(1) << (uint(syscall.SIGINT) - 1)
	seen := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "SigCgt" && k != "SigIgn") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil || mask&bit != 0 {
			return false
		}
		seen++
	}
	return seen == 2
}
