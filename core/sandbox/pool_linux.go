//go:build linux

package sandbox

// Issue 17: a re-exec'd helper per command costs the binary's start-up
// (package init dominated) on every command, ~10× an unsandboxed command.
// Commands therefore go through a long-lived helper per sandbox (policy +
// roots), measured at ~4 ms a sandboxed `exec_command true` against ~20 ms
// with a helper per command: it is started once, restricts itself once
// (mounts, Landlock, seccomp, process bound), and then starts each command
// on request. With namespaces each command is PID 1 of a PID namespace of
// its own, so the command's end, a kill, or the helper's death (and the
// helper dies with grove) takes its whole tree with it, exactly.
// Without namespaces (danger-full-access, or no user namespaces) the
// helper is the subreaper: a command's group and descendants die with it,
// and what escaped into a session of its own dies as soon as no command of
// that helper runs, or with the helper. The per-command helper (runHelper)
// remains for Command and where grove has no pidfd to hand over.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"
)

// poolArg makes the helper serve commands: `HelperArg serve SPEC`.
const poolArg = "serve"

// The helper's descriptors: 3 = grove's pidfd, 4 = the control socket.
const poolConnFD = 4

// poolRequest goes from grove to the pool helper over the control socket;
// "start" carries three descriptors: stdin, output, and the command's
// reply socket.
type poolRequest struct {
	Op   string   `json:"op"` // start | kill | signal
	ID   uint64   `json:"id"`
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// DirDev/DirIno pin Dir (DirPin): the command starts in that very
	// directory, opened without following symlinks, or not at all.
	DirDev uint64 `json:"dir_dev,omitempty"`
	DirIno uint64 `json:"dir_ino,omitempty"`
	// TTY (start): stdin and output are a pseudo-terminal slave, made the
	// command's controlling terminal.
	TTY bool `json:"tty,omitempty"`
	// Signal (signal): poolSignalGroup or poolSignalInit.
	Signal string `json:"signal,omitempty"`
}

// The interrupts a "signal" request asks for (see Process.Interrupt and
// InterruptInit).
const (
	poolSignalGroup = "int"      // SIGINT to the group, then initDefault
	poolSignalInit  = "int-init" // initDefault only
)

// poolReply goes back on a command's reply socket ("ready" on the control
// socket once the helper restricted itself).
type poolReply struct {
	Ready   bool   `json:"ready,omitempty"`
	Started bool   `json:"started,omitempty"`
	Err     string `json:"err,omitempty"`
	Exit    *int   `json:"exit,omitempty"`
}

const maxPoolMessage = 1 << 20

// ---- helper side ----

// teardown ends every command before the helper exits. With namespaces
// the helper is PID 1 of the outer one: its exit makes the kernel kill
// them all (it could not signal them itself, they are in nested Landlock
// domains). Without, it kills its descendants.
func teardown(spec helperSpec) error {
	if !spec.Namespaces {
		killTree()
	}
	return nil
}

// startIsolated starts a command from a thread of its own that first
// enters a Landlock domain nested in the helper's (restricted modes): the
// command then can signal (and trace) neither the helper nor the other
// commands of this sandbox, only its own processes. Each thread of the
// helper is in a Landlock domain of its own (psx restricts them one by one
// before ABI 8), so only this thread can signal the command: it kills it
// when kill is closed. It lives until exited is closed (the command's
// death signal fires when it exits), then ends with its extra layer,
// never reused.
func startIsolated(spec helperSpec, r poolRequest, stdin, out, errOut int, exited, kill <-chan struct{}, intr *commandSignals) (int, error) {
	type result struct {
		pid int
		err error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if spec.Policy.Mode != protocol.SandboxDangerFullAccess {
			if err := isolateThread(spec.Policy); err != nil {
				res <- result{0, err}
				return
			}
			// Capability sets are per thread: what restrictSelf dropped
			// on the main thread, drop here too.
			if err := dropThreadCapabilities(); err != nil {
				res <- result{0, err}
				return
			}
		}
		pid, err := startPooled(r, stdin, out, errOut, spec.Namespaces)
		res <- result{pid, err}
		if err != nil {
			return
		}
		for {
			select {
			case <-exited:
				return
			case what := <-intr.ch:
				intr.deliver(pid, what)
				continue
			case <-kill:
				// PID 1 of its namespace: the kernel takes the tree.
				_ = syscall.Kill(pid, syscall.SIGKILL)
				<-exited
			}
			return
		}
	}()
	got := <-res
	return got.pid, got.err
}

// isolateThread adds to this thread a Landlock layer that only scopes
// signals (and abstract Unix sockets without network access). It needs
// Landlock ABI 6; before, commands share the helper's domain.
func isolateThread(policy protocol.SandboxPolicy) error {
	if abi, err := Supported(); err != nil || abi < 6 {
		return nil
	}
	scoped := uint64(llsys.ScopeSignal)
	if !policy.NetworkAccess {
		scoped |= llsys.ScopeAbstractUnixSocket
	}
	// Every layer denies moving and linking across directories ("refer")
	// unless it handles and grants it: grant it everywhere, the helper's
	// layer decides.
	fd, err := llsys.LandlockCreateRuleset(&llsys.RulesetAttr{HandledAccessFS: llsys.AccessFSRefer, Scoped: scoped}, 0)
	if err != nil {
		return fmt.Errorf("isolate the command (Landlock ruleset): %w", err)
	}
	defer unix.Close(fd)
	root, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("isolate the command: %w", err)
	}
	defer unix.Close(root)
	if err := llsys.LandlockAddPathBeneathRule(fd, &llsys.PathBeneathAttr{AllowedAccess: llsys.AccessFSRefer, ParentFd: root}, 0); err != nil {
		return fmt.Errorf("isolate the command (Landlock rule): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("isolate the command: no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("isolate the command (Landlock): %w", err)
	}
	return nil
}

// killCommand kills a command started without namespaces: its group and
// its descendants.
func killCommand(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for _, d := range descendants(pid) {
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// startPooled starts one command in a session of its own (with
// namespaces, as PID 1 of a new PID namespace) from this (the restricted,
// locked) thread.
func startPooled(r poolRequest, stdin, out, errOut int, namespaces bool) (int, error) {
	if len(r.Argv) == 0 {
		return 0, errors.New("empty command")
	}
	path, err := lookPath(r.Argv[0], r.Env)
	if err != nil {
		return 0, err
	}
	dir := r.Dir
	if r.DirIno != 0 {
		fd, err := openPinned(r.Dir, r.DirDev, r.DirIno)
		if err != nil {
			return 0, err
		}
		defer unix.Close(fd)
		dir = pinnedDirPath(fd) // the child's chdir goes to the descriptor
	}
	var flags uintptr
	if namespaces {
		flags = syscall.CLONE_NEWPID
	}
	// Setctty makes fd 0 (the pseudo-terminal slave of a tty session) the
	// controlling terminal of the command's new session.
	return syscall.ForkExec(path, r.Argv, &syscall.ProcAttr{
		Dir:   dir,
		Env:   r.Env,
		Files: []uintptr{uintptr(stdin), uintptr(out), uintptr(errOut)},
		Sys:   &syscall.SysProcAttr{Setsid: true, Setctty: r.TTY, Pdeathsig: syscall.SIGKILL, Cloneflags: flags},
	})
}

// lookPath finds name in the command's PATH (not the helper's).
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %s: %w", name, exec.ErrNotFound)
}

func sendReply(fd int, r poolReply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return unix.Sendmsg(fd, b, nil, nil, 0)
}

// ---- grove side ----

// poolHelper is one long-lived helper and its control socket.
type poolHelper struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	conn   int // control socket, grove's end
	nextID uint64
	dead   bool
}

var pools struct {
	mu      sync.Mutex
	helpers map[string]*poolHelper
}

// pooledProcess is a command started by a pool helper.
type pooledProcess struct {
	h     *poolHelper
	id    uint64
	reply *os.File
}

// startInPool starts r (Op "start": argv, env, tty, a pinned dir)
// through the pool helper for spec (starting the helper first if
// needed); a helper found dead is replaced once.
func startInPool(spec helperSpec, r poolRequest, stdin, out, errOut *os.File) (*pooledProcess, error) {
	r.Dir = spec.Dir
	spec.Dir = ""
	key, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		h, err := poolFor(string(key), spec)
		if err != nil {
			return nil, err
		}
		p, err := h.start(r, stdin, out, errOut)
		if err == nil || !h.isDead() || attempt > 0 {
			return p, err
		}
	}
}

// warmPool starts the helper for spec (Dir ignored) unless it runs.
func warmPool(spec helperSpec) error {
	spec.Dir = ""
	key, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	_, err = poolFor(string(key), spec)
	return err
}

func poolFor(key string, spec helperSpec) (*poolHelper, error) {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	if h := pools.helpers[key]; h != nil && !h.isDead() {
		return h, nil
	}
	h, err := newPoolHelper(spec)
	if err != nil {
		return nil, err
	}
	if pools.helpers == nil {
		pools.helpers = map[string]*poolHelper{}
	}
	pools.helpers[key] = h
	return h, nil
}

func newPoolHelper(spec helperSpec) (*poolHelper, error) {
	if spec.Namespaces && spec.Policy.Mode == protocol.SandboxWorkspaceWrite {
		if err := claimPlaceholders(spec.Roots, spec.Protect); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	watch := parentWatch()
	if watch == nil {
		return nil, errors.New("sandbox: no pidfd for the pool helper")
	}
	spec.ParentFD = 3
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "grove-sandbox-control")
	defer theirs.Close()
	self, err := helperBinary()
	if err != nil {
		_ = unix.Close(fds[0])
		return nil, err
	}
	cmd := exec.Command(self, HelperArg, poolArg, string(raw))
	cmd.Env = helperEnv() // never grove's: the helper may be the commands' parent
	cmd.Dir = "/"
	cmd.SysProcAttr = helperProcAttr(spec.Namespaces)
	cmd.ExtraFiles = []*os.File{watch, theirs}
	if err := cmd.Start(); err != nil {
		_ = unix.Close(fds[0])
		return nil, fmt.Errorf("sandbox: start the pool helper: %w", err)
	}
	h := &poolHelper{cmd: cmd, conn: fds[0]}
	var r poolReply
	if err := readReply(h.conn, &r); err != nil || !r.Ready {
		h.kill()
		if r.Err != "" {
			return nil, fmt.Errorf("sandbox: %s", r.Err)
		}
		return nil, fmt.Errorf("sandbox: the pool helper did not start: %v", err)
	}
	return h, nil
}

func (h *poolHelper) isDead() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dead
}

// kill ends a broken helper and reaps it (its commands die with it).
func (h *poolHelper) kill() {
	h.dead = true
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
	_ = unix.Close(h.conn)
}

func (h *poolHelper) send(r poolRequest, files ...int) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b) > maxPoolMessage {
		return fmt.Errorf("sandbox: command too large (%d bytes of arguments and environment)", len(b))
	}
	var oob []byte
	if len(files) > 0 {
		oob = unix.UnixRights(files...)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead {
		return errors.New("sandbox: the pool helper exited")
	}
	if err := unix.Sendmsg(h.conn, b, oob, nil, 0); err != nil {
		h.kill()
		return fmt.Errorf("sandbox: the pool helper exited: %w", err)
	}
	return nil
}

func (h *poolHelper) start(r poolRequest, stdin, out, errOut *os.File) (*pooledProcess, error) {
	if stdin == nil {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return nil, err
		}
		defer null.Close()
		stdin = null
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: reply socket: %w", err)
	}
	reply := os.NewFile(uintptr(fds[0]), "grove-sandbox-reply")
	h.mu.Lock()
	h.nextID++
	r.ID = h.nextID
	h.mu.Unlock()
	err = h.send(r, int(stdin.Fd()), int(out.Fd()), fds[1], int(errOut.Fd()))
	_ = unix.Close(fds[1])
	if err != nil {
		_ = reply.Close()
		return nil, err
	}
	var rep poolReply
	if err := readReply(int(reply.Fd()), &rep); err != nil || !rep.Started {
		_ = reply.Close()
		if rep.Err != "" {
			return nil, fmt.Errorf("sandbox: %s", rep.Err)
		}
		return nil, fmt.Errorf("sandbox: the pool helper did not start the command: %v", err)
	}
	return &pooledProcess{h: h, id: r.ID, reply: reply}, nil
}

// wait returns the command's exit code (128+N for signal N).
func (p *pooledProcess) wait() (int, error) {
	defer p.reply.Close()
	var r poolReply
	if err := readReply(int(p.reply.Fd()), &r); err != nil || r.Exit == nil {
		return -1, fmt.Errorf("sandbox: the helper went away before the command ended: %v", err)
	}
	return *r.Exit, nil
}

func (p *pooledProcess) stop() error { return p.h.send(poolRequest{Op: "kill", ID: p.id}) }

func (p *pooledProcess) signal(what string) error {
	return p.h.send(poolRequest{Op: "signal", ID: p.id, Signal: what})
}

// readReply reads one message; EOF (the peer is gone) is an error.
func readReply(fd int, r *poolReply) error {
	buf := make([]byte, 4096)
	for {
		n, _, _, _, err := unix.Recvmsg(fd, buf, nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("connection closed")
		}
		return json.Unmarshal(buf[:n], r)
	}
}

func poolSupported() bool { return true }

// Shutdown ends every pool helper (their commands die with them) and then
// removes the read-only placeholders no other grove uses (placeholder.go).
// grove calls it on its way out; a sandbox used afterwards starts afresh.
func Shutdown() {
	pools.mu.Lock()
	for key, h := range pools.helpers {
		h.mu.Lock()
		if !h.dead {
			h.kill()
		}
		h.mu.Unlock()
		delete(pools.helpers, key)
	}
	pools.mu.Unlock()
	releasePlaceholders()
}
