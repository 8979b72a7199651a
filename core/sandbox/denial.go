package sandbox

import (
	"bytes"
	"io"
	"sync"

	"github.com/grovecli/grove/protocol"
)

// A refusal by the sandbox reaches only the confined process: Landlock
// fails the call with EACCES, the seccomp filter with EPERM, a read-only
// bind with EROFS, and the kernel reports none of them to the helper
// (Landlock's audit records need Linux 6.15 and the audit socket). What
// the backend can see is the command's output as it passes: the error
// text those errnos print as. DenialWatch is that observer, kept where the
// command runs — the one place that knows the sandbox confined it — so
// the backend hands the tools a typed answer (execenv.SandboxDenied)
// instead of each caller matching output.

// denialSigns are strerror's texts for the errnos the sandbox returns.
var denialSigns = [][]byte{[]byte("Permission denied"), []byte("Operation not permitted"), []byte("Read-only file system")}

// longestSign bounds what a write keeps to find a sign split across two.
const longestSign = len("Operation not permitted")

// DenialWatch passes a command's output on to out and notes whether it
// shows a refusal of the sandbox. Writes come from one goroutine (the
// backend's copier); Denied may be asked from another once it ended.
type DenialWatch struct {
	out      io.Writer
	confined bool
	mu       sync.Mutex
	carry    []byte // the end of the previous write
	seen     bool
}

// WatchDenials watches output of a command run under policy; a command
// run without the sandbox (danger-full-access) is never denied by it.
func WatchDenials(policy protocol.SandboxPolicy, out io.Writer) *DenialWatch {
	if out == nil {
		out = io.Discard
	}
	return &DenialWatch{out: out, confined: policy.Mode != protocol.SandboxDangerFullAccess}
}

func (d *DenialWatch) Write(p []byte) (int, error) {
	if d.confined {
		d.mu.Lock()
		if !d.seen {
			buf := append(d.carry, p...)
			for _, s := range denialSigns {
				if bytes.Contains(buf, s) {
					d.seen = true
					break
				}
			}
			d.carry = append(d.carry[:0], buf[max(0, len(buf)-longestSign):]...)
		}
		d.mu.Unlock()
	}
	return d.out.Write(p)
}

// Denied reports whether a command that ended with code failed on a
// refusal of its sandbox.
func (d *DenialWatch) Denied(code int) bool {
	if d == nil || code == 0 {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen
}
