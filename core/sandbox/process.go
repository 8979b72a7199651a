package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/grovecli/grove/protocol"
)

// Process is a command started by Start.
type Process struct {
	pooled *pooledProcess // through the long-lived helper of its sandbox
	cmd    *exec.Cmd      // through a helper of its own
	done   chan error
}

// StartRequest is one command for Start.
type StartRequest struct {
	Policy protocol.SandboxPolicy
	// Cwd is the thread's cwd (the writable roots come from it); Dir is
	// where the command runs (default Cwd).
	Cwd, Dir string
	Argv     []string
	Env      []string
	// Stdin is the command's standard input; nil means /dev/null.
	Stdin *os.File
	// Out receives stdout, and stderr unless Err is set.
	Out *os.File
	// DirPin, when set, is Dir as it was checked: the command starts in
	// that directory or not at all (see DirPin).
	DirPin *DirPin
	// Err, when set, receives stderr apart (a hook's feedback is its
	// stderr, its decision its stdout).
	Err *os.File
	// TTY says Stdin and Out are the same pseudo-terminal slave (grove
	// holds the master): it becomes the command's controlling terminal.
	TTY bool
}

// NamespacesAvailable reports whether restricted commands get their own
// user, mount and PID namespaces here.
func NamespacesAvailable() bool { return namespacesAvailable() }

// pooledSpec is the pool helper that runs commands under policy in cwd;
// false when commands are not pooled (no pidfd, no Landlock for a
// restricted policy, another OS).
func pooledSpec(policy protocol.SandboxPolicy, cwd string) (helperSpec, bool) {
	if !poolSupported() || parentWatch() == nil {
		return helperSpec{}, false
	}
	restricted := policy.Mode == protocol.SandboxReadOnly || policy.Mode == protocol.SandboxWorkspaceWrite
	_, noLandlock := Supported()
	if policy.Mode != protocol.SandboxDangerFullAccess && (!restricted || noLandlock != nil) {
		return helperSpec{}, false
	}
	spec := helperSpec{Policy: policy, Roots: WritableRoots(policy, cwd), Namespaces: restricted && namespacesAvailable()}
	if policy.Mode == protocol.SandboxWorkspaceWrite {
		spec.Protect = homesWithin(spec.Roots)
	}
	return spec, true
}

// Prewarm starts the pool helper that Start will use for commands under
// policy in cwd, so the first command does not wait for it (starting the
// helper is most of a first command's cost). It returns once the helper
// is ready, at once when it already runs or commands are not pooled.
func Prewarm(policy protocol.SandboxPolicy, cwd string) error {
	spec, ok := pooledSpec(policy, cwd)
	if !ok {
		return nil
	}
	return warmPool(spec)
}

// Start runs r.Argv in r.Dir under r.Policy, the writable roots taken from
// the thread's cwd, with r.Env, and stdout and stderr to r.Out.
// Restricted commands go through their sandbox's long-lived helper when
// namespaces are available (see pool_linux.go), otherwise through a
// helper of their own (Command). Wait must be called.
func Start(r StartRequest) (*Process, error) {
	policy, cwd, dir, argv, env := r.Policy, r.Cwd, r.Dir, r.Argv, r.Env
	if dir == "" {
		dir = cwd
	}
	if r.DirPin != nil && absolute("", dir) != r.DirPin.Path {
		return nil, errDirChanged(r.DirPin.Path, fmt.Errorf("it would start in %s", dir))
	}
	if spec, ok := pooledSpec(policy, cwd); len(argv) > 0 && ok {
		spec.Dir = absolute("", dir)
		req := poolRequest{Op: "start", Argv: argv, Env: env, TTY: r.TTY}
		if r.DirPin != nil {
			req.DirDev, req.DirIno = r.DirPin.Dev, r.DirPin.Ino
		}
		p, err := startInPool(spec, req, r.Stdin, r.Out, r.errFile())
		if err != nil {
			return nil, err
		}
		return &Process{pooled: p}, nil
	}
	if r.DirPin != nil {
		if err := r.DirPin.Check(); err != nil { // the closest this path can check
			return nil, err
		}
	}
	cmd, err := commandIn(context.Background(), policy, cwd, dir, argv, r.TTY)
	if err != nil {
		return nil, err
	}
	cmd.Env = env
	cmd.Stdin = nil
	if r.Stdin != nil {
		cmd.Stdin = r.Stdin
	}
	cmd.Stdout, cmd.Stderr = r.Out, r.errFile()
	p := &Process{cmd: cmd, done: make(chan error, 1)}
	started := make(chan error, 1)
	go func() {
		// The helper's death signal fires when the thread that started it
		// exits: hold this thread until the helper is reaped.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	return p, nil
}

// errFile is where stderr goes: Err, else Out.
func (r StartRequest) errFile() *os.File {
	if r.Err != nil {
		return r.Err
	}
	return r.Out
}

// Wait waits for the command and returns its exit code, the shell's
// convention (128+N for signal N). An error means it could not be
// followed to its end.
func (p *Process) Wait() (int, error) {
	if p.pooled != nil {
		return p.pooled.wait()
	}
	err := <-p.done
	code := exitCode(p.cmd.ProcessState)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return code, err
	}
	return code, nil
}

// Stop ends the command with its whole tree.
func (p *Process) Stop() error {
	if p.pooled != nil {
		return p.pooled.stop()
	}
	return Stop(p.cmd)
}

// Interrupt delivers SIGINT to the command's process group, as Ctrl+C in
// a terminal would. A command that is the first process of its own PID
// namespace (pooled, with namespaces) ignores a signal it has no handler
// for; the helper then does what the default action would, ending it with
// the exit code 130 (128+SIGINT). A command run by a helper of its own is
// stopped with its tree instead.
func (p *Process) Interrupt() error {
	if p.pooled != nil {
		return p.pooled.signal(poolSignalGroup)
	}
	return Stop(p.cmd)
}

// InterruptInit follows up a Ctrl+C typed on the command's terminal: the
// terminal already signalled the foreground group, but a first process of
// a PID namespace without a SIGINT handler ignored it; the helper ends it
// as the default action would (exit code 130). Nothing happens otherwise.
func (p *Process) InterruptInit() error {
	if p.pooled != nil {
		return p.pooled.signal(poolSignalInit)
	}
	return nil
}

// Kill is the last resort when Stop did not end it in time.
func (p *Process) Kill() {
	if p.pooled != nil {
		_ = p.pooled.stop()
		return
	}
	_ = p.cmd.Process.Kill()
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
