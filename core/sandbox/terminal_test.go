//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"
)

// openPty opens a pseudo-terminal pair as another program (a shell in
// the user's terminal) would have, and returns the master and the
// follower's path.
func openPty(t *testing.T) (*os.File, string) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	return ptmx, fmt.Sprintf("/dev/pts/%d", n)
}

// issue 21: a sandboxed command opened another process's /dev/pts/N and
// wrote text and an OSC title sequence into it. Commands get the
// null-like devices and their own pipes; no terminal, to write or read
// (reading one steals keystrokes), and no new one.
func TestEscapeOtherTerminals(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	ptmx, pts := openPty(t)
	bothWays(t, func(t *testing.T) {
		for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			for _, attack := range []string{"open-write:" + pts, "open-read:" + pts, "open-write:/dev/ptmx", "open-write:/dev/tty", "open-write:/dev/console", "open-read:/dev/tty0"} {
				if got := probe(t, p, work, attack); !strings.HasPrefix(got, "blocked") {
					t.Errorf("%s: %s: %s", p.Mode, attack, got)
				}
			}
			// The other angle: the shell's own redirection, and the
			// terminal reached through grove's (this process's) fds.
			out, _ := sh(t, p, work, fmt.Sprintf("echo pwned > %s; printf '\\033]0;owned\\007' > /proc/%d/fd/%d; echo END", pts, os.Getpid(), ptmx.Fd()))
			if !strings.Contains(out, "END") || strings.Count(out, "denied")+strings.Count(out, "No such")+strings.Count(out, "not permitted") < 2 {
				t.Errorf("%s: %s", p.Mode, out)
			}
			// What commands need still works.
			if out, code := sh(t, p, work, "echo a > /dev/null && head -c 4 /dev/urandom | wc -c && echo b >&2 && echo c > /dev/stderr && ls /dev >/dev/null && echo fine"); code != 0 || !strings.Contains(out, "fine") {
				t.Errorf("%s: exit %d: %s", p.Mode, code, out)
			}
		}
	})
	// Nothing reached the terminal.
	raw, err := ptmx.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	buf := make([]byte, 256)
	_ = raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if k, _ := unix.Poll(fds, 0); k > 0 && fds[0].Revents&unix.POLLIN != 0 {
			n, _ = unix.Read(int(fd), buf)
		}
	})
	if n > 0 {
		t.Fatalf("the terminal received %q", buf[:n])
	}
}
