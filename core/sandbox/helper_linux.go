//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"
)

// probeArg asks the helper only to prove it started (namespace probe).
const probeArg = "probe"

// maxProcesses bounds the processes of one sandbox's commands
// (RLIMIT_NPROC in the helper's own user namespace, where the count starts
// at zero).
const maxProcesses = 1024

// MaybeRunHelper turns this process into the sandbox helper when it was
// started as one (os.Args[1] == HelperArg): it restricts itself, then
// either serves commands (pool_linux.go) or starts the command after "--"
// and supervises it, never returning; on a setup failure it says why and
// exits 126 without running anything.
// Otherwise it returns at once. The package's init calls it, so the helper
// starts before the initialisers of most of the binary run; main and the
// TestMains still call it for clarity.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	if len(os.Args) == 3 && os.Args[2] == probeArg {
		// Namespaces are usable only if the helper can also mount its own
		// /proc (psx, which Landlock uses, walks /proc/self/task).
		if err := mountProc(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) == 4 && os.Args[2] == poolArg {
		_, err := runPool(os.Args[3])
		if err != nil {
			fmt.Fprintf(os.Stderr, "grove sandbox: %v\n", err)
			os.Exit(126)
		}
		os.Exit(0)
	}
	code, err := runHelper(os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "grove sandbox: %v\n", err)
		os.Exit(126)
	}
	os.Exit(code)
}

// helperProcAttr starts the helper in its own session (no controlling
// terminal, so no TIOCSTI into the user's shell). With namespaces it is
// PID 1 of a new PID namespace: when it dies, for any reason, the kernel
// kills every process of the namespace, so SIGKILL on grove's death is
// enough. Without, it gets SIGTERM and kills the tree it reaped itself.
func helperProcAttr(namespaces bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	if namespaces {
		uid, gid := os.Getuid(), os.Getgid()
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
		// An unprivileged user keeps no capability across the helper's
		// execve, even in its own user namespace; it needs CAP_SYS_ADMIN
		// there to mount. The helper drops it before the command runs.
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		a.Pdeathsig = syscall.SIGKILL
	}
	return a
}

var nsProbe struct {
	once sync.Once
	ok   bool
}

// namespacesAvailable reports (once per process) whether the helper can be
// started in new user, mount and PID namespaces; distributions may forbid
// unprivileged user namespaces, and then the helper runs without them.
func namespacesAvailable() bool {
	nsProbe.once.Do(func() {
		if namespacesDisabled() {
			return
		}
		self, err := helperBinary()
		if err != nil {
			return
		}
		cmd := exec.Command(self, HelperArg, probeArg)
		cmd.Env = helperEnv()
		cmd.SysProcAttr = helperProcAttr(true)
		nsProbe.ok = cmd.Run() == nil
	})
	return nsProbe.ok
}

var watch struct {
	once sync.Once
	fd   *os.File
}

// parentWatch is a pidfd of this process, handed to every helper: it
// becomes readable when grove exits however it exits (kill -9 too), and
// the helper then kills its tree. A death signal alone is not enough: the
// kernel drops it when the helper's credentials change in its user
// namespace. Nil before Linux 5.3.
func parentWatch() *os.File {
	watch.once.Do(func() {
		fd, err := unix.PidfdOpen(os.Getpid(), 0)
		if err != nil {
			return
		}
		unix.CloseOnExec(fd)
		watch.fd = os.NewFile(uintptr(fd), "grove-pidfd")
	})
	return watch.fd
}

// watchParent closes parentGone when the pidfd at fd signals that grove
// has exited; the supervising thread then kills the tree.
func watchParent(fd int) {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) || (err == nil && n == 0) {
			continue
		}
		close(parentGone)
		return
	}
}

// Stop ends a command started by Command with its whole process tree: the
// helper kills everything it supervises and exits (the caller kills the
// helper if it has not exited after a grace period; WaitDelay does that for
// commands started with a context).
func Stop(cmd *exec.Cmd) error {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	return cmd.Process.Signal(syscall.SIGTERM)
}

// runHelper restricts this process, starts the command in a new session
// and supervises it: the helper is the subreaper of everything the command
// starts (a `setsid cmd &` escapes the process group, not the helper), so
// when the command ends, is stopped, or grove dies, it kills them all. It
// returns the command's exit code (128+N for signal N).
// restrictSelf turns this process into a restricted supervisor: mounts
// (with namespaces), the process bound, no capabilities and no inherited
// descriptors for what it starts, subreaper, Landlock and seccomp. It locks
// the calling goroutine to its thread, which must start the commands: the
// commands' death signal fires when that thread exits, and (before Landlock
// ABI 8) only that thread shares the commands' Landlock domain.
func restrictSelf(spec helperSpec) (chan os.Signal, error) {
	runtime.LockOSThread()
	// Commands must not read the helper's /proc files (environ, mem):
	// without a PID namespace the helper is their parent, in their
	// Landlock domain.
	if err := HardenProcess(); err != nil {
		return nil, err
	}
	if spec.ParentFD > 0 {
		go watchParent(spec.ParentFD)
	}
	restricted := spec.Policy.Mode != protocol.SandboxDangerFullAccess
	if restricted {
		// BestEffort would silently enforce nothing on a kernel without
		// Landlock; the helper must never run a command unconfined.
		if _, err := Supported(); err != nil {
			return nil, err
		}
		if err := refuseUncoverable(spec); err != nil {
			return nil, err
		}
		if spec.Namespaces {
			if err := setupMounts(spec); err != nil {
				return nil, err
			}
			// Counted per user namespace, where only this helper's
			// commands run as the user. The kernel exempts the global
			// root user: this binds unprivileged users.
			lim := &unix.Rlimit{Cur: maxProcesses, Max: maxProcesses}
			if err := unix.Setrlimit(unix.RLIMIT_NPROC, lim); err != nil {
				return nil, fmt.Errorf("bound the number of processes: %w", err)
			}
		}
	}
	if restricted {
		if err := dropThreadCapabilities(); err != nil {
			return nil, err
		}
	}
	// The command gets no capability from the helper (root in its own
	// user namespace keeps root's, as outside, but for the bounding set).
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return nil, fmt.Errorf("drop ambient capabilities: %w", err)
	}
	// Only 0-2 reach the command: anything grove inherited without
	// close-on-exec (from its own parent) stays behind.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return nil, fmt.Errorf("close inherited file descriptors: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("become the subreaper of the command: %w", err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if restricted {
		cfg, rules := landlockRules(spec)
		if err := cfg.Restrict(rules...); err != nil {
			return nil, fmt.Errorf("apply the %s sandbox with Landlock: %w", spec.Policy.Mode, err)
		}
		if err := loadSeccomp(spec.Policy, spec.Namespaces); err != nil {
			return nil, fmt.Errorf("apply the %s sandbox's seccomp filter: %w", spec.Policy.Mode, err)
		}
	}
	return stop, nil
}

func runHelper(args []string) (int, error) {
	spec, argv, err := parseHelperArgs(args)
	if err != nil {
		return 0, err
	}
	stop, err := restrictSelf(spec)
	if err != nil {
		return 0, err
	}
	known, err := protectedBaseline(spec)
	if err != nil {
		return 0, err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, fmt.Errorf("command %s: %w", argv[0], err)
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir:   spec.Dir,
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setsid: true, Setctty: spec.TTY, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", path, err)
	}
	code := supervise(pid, stop)
	// The command's output is this helper's stderr (see Command).
	for _, line := range quarantineNew(spec, known) {
		fmt.Fprintf(os.Stderr, "\n%s\n", line)
	}
	return code, nil
}

// supervise waits for the command and takes its tree down when it ends,
// when the helper is stopped, or when grove dies. Every kill is sent from
// this (the locked, forking) thread: with Landlock before ABI 8 each
// thread restricted itself into a domain of its own, and a signal's scope
// is the sender's domain, which only this thread shares with the command.
// Reaping may run on any thread.
func supervise(pid int, stop <-chan os.Signal) int {
	exited := make(chan int, 1)
	reaped := make(chan struct{})
	go func() {
		exited <- reapUntil(pid)
		reapAll()
		close(reaped)
	}()
	var code int
	select {
	case code = <-exited:
	case <-stop:
		killTree()
		code = <-exited
	case <-parentGone:
		killTree()
		code = <-exited
	}
	// Everything the command left behind, also what is still forking.
	for {
		killTree()
		select {
		case <-reaped:
			return code
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// parentGone is closed when grove has exited (see watchParent).
var parentGone = make(chan struct{})

// reapUntil reaps children (the subreaper inherits orphans) until pid ends
// and returns its exit code (128+N for signal N).
func reapUntil(pid int) int {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 126 // no child left before pid ended: cannot happen
		}
		if wpid != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// reapAll reaps until no child is left (supervise keeps killing them).
func reapAll() {
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return // ECHILD: done
		}
	}
}

// killTree kills every process the helper supervises. As PID 1 of its own
// namespace, kill(-1) reaches exactly the namespace; otherwise it walks its
// descendants through /proc (orphans were re-parented to the helper, the
// subreaper).
func killTree() {
	if os.Getpid() == 1 {
		_ = syscall.Kill(-1, syscall.SIGKILL)
		return
	}
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// descendants lists the processes below pid (breadth first) from
// /proc/PID/task/TID/children.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, t := range tasks {
			raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, t.Name()))
			if err != nil {
				continue
			}
			for _, f := range bytes.Fields(raw) {
				var c int
				if _, err := fmt.Sscan(string(f), &c); err == nil && c > 0 {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// parseHelperArgs reads `POLICY_JSON -- COMMAND [ARGS...]`.
func parseHelperArgs(args []string) (helperSpec, []string, error) {
	if len(args) < 3 || args[1] != "--" {
		return helperSpec{}, nil, fmt.Errorf("usage: %s POLICY_JSON -- COMMAND [ARGS...] (got %d arguments)", HelperArg, len(args))
	}
	spec, err := decodeSpec(args[0])
	return spec, args[2:], err
}

// decodeSpec reads and checks the helper's policy argument.
func decodeSpec(raw string) (helperSpec, error) {
	var spec helperSpec
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return spec, fmt.Errorf("decode the sandbox policy %q: %w", raw, err)
	}
	switch spec.Policy.Mode {
	case protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite, protocol.SandboxDangerFullAccess:
	default:
		return spec, fmt.Errorf("unknown sandbox mode %q (want read-only, workspace-write or danger-full-access)", spec.Policy.Mode)
	}
	for _, r := range spec.Roots {
		if !filepath.IsAbs(r) {
			return spec, fmt.Errorf("writable root %q is not absolute", r)
		}
	}
	if spec.Dir != "" && !filepath.IsAbs(spec.Dir) {
		return spec, fmt.Errorf("working directory %q is not absolute", spec.Dir)
	}
	return spec, nil
}
