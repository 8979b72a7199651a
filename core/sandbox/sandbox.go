// Package sandbox confines commands with the kernel, not with string
// checks: every command runs under a re-exec of this binary (the helper)
// that restricts itself (Landlock, a seccomp filter, and on Linux with user
// namespaces a private mount and PID namespace), starts the command in a
// new session and stays as its supervisor, so the whole process tree dies
// with the command, on a timeout, or with grove.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/grovecli/grove/protocol"
)

// HelperArg is argv[1] of the re-exec'd sandbox helper.
const HelperArg = "__grove_sandbox_exec"

// stopGrace is how long a stopped helper has to kill its tree before it is
// killed itself.
const stopGrace = 2 * time.Second

// abiProbe reports the kernel's Landlock ABI (tests replace it).
var abiProbe = func() (int, error) { return llsys.LandlockGetABIVersion() }

// Supported returns the kernel's Landlock ABI version, or an error when the
// kernel has no Landlock (not built in, or not enabled at boot).
func Supported() (abi int, err error) {
	abi, err = abiProbe()
	if err != nil {
		//lint:ignore ST1005 Landlock is a proper noun and the message is shown to users as is
		return 0, fmt.Errorf("Landlock is not available on this kernel: %w", err)
	}
	if abi < 1 {
		//lint:ignore ST1005 Landlock is a proper noun
		return 0, fmt.Errorf("Landlock is not available on this kernel (ABI %d)", abi)
	}
	return abi, nil
}

// helperSpec is what the parent hands the helper (argv[2], JSON): the
// policy, the writable roots already resolved against the thread's cwd and
// the parent's temp dir, and the directory the command runs in.
type helperSpec struct {
	Policy protocol.SandboxPolicy `json:"policy"`
	Roots  []string               `json:"roots,omitempty"`
	// Dir is the command's working directory; the helper enters it again
	// after changing its mounts, so the cwd sees the new mounts.
	Dir string `json:"dir,omitempty"`
	// Namespaces says the helper was started in new user, mount and PID
	// namespaces (the parent asked the kernel for them).
	Namespaces bool `json:"namespaces,omitempty"`
	// ParentFD is the helper's descriptor of a pidfd of grove (0: none).
	ParentFD int `json:"parent_fd,omitempty"`
	// Protect lists the user-level configuration directories inside the
	// roots (homes.go), kept read-only like the protected names.
	Protect []string `json:"protect,omitempty"`
	// TTY says the helper's stdio is a pseudo-terminal slave: the command
	// gets it as its controlling terminal.
	TTY bool `json:"tty,omitempty"`
}

// Command builds the command that runs argv in cwd under policy, with the
// writable roots taken from cwd. See CommandIn.
func Command(ctx context.Context, policy protocol.SandboxPolicy, cwd string, argv []string) (*exec.Cmd, error) {
	return CommandIn(ctx, policy, cwd, cwd, argv)
}

// CommandIn builds the command that runs argv in dir under policy. The
// writable roots come from the thread's cwd and the policy only, never from
// dir: a working directory cannot widen the sandbox (use CheckWorkdir to
// refuse one outside the roots). read-only and workspace-write are refused
// (never run unconfined) when the kernel has no Landlock.
//
// The returned command is ready to start; the caller sets Env and stdio and
// must keep the process attributes (new session, death signal,
// namespaces). Stop ends it with its whole tree.
func CommandIn(ctx context.Context, policy protocol.SandboxPolicy, cwd, dir string, argv []string) (*exec.Cmd, error) {
	return commandIn(ctx, policy, cwd, dir, argv, false)
}

// commandIn is CommandIn; tty says the command's stdio is a pseudo-terminal
// slave that becomes its controlling terminal.
func commandIn(ctx context.Context, policy protocol.SandboxPolicy, cwd, dir string, argv []string, tty bool) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	switch policy.Mode {
	case protocol.SandboxDangerFullAccess, protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite:
	default:
		return nil, fmt.Errorf("sandbox: unknown sandbox mode %q (want read-only, workspace-write or danger-full-access)", policy.Mode)
	}
	restricted := policy.Mode != protocol.SandboxDangerFullAccess
	if !restricted && runtime.GOOS != "linux" {
		// No supervising helper outside Linux: a process group it is.
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		if cmd.Dir == "" {
			cmd.Dir = cwd
		}
		cmd.SysProcAttr = helperProcAttr(false)
		if tty {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		}
		cmd.Cancel = func() error { return Stop(cmd) }
		return cmd, nil
	}
	if restricted {
		if _, err := Supported(); err != nil {
			return nil, fmt.Errorf("sandbox mode %s requires Landlock, which this kernel does not provide; set sandbox_mode = \"danger-full-access\" to run unconfined (%v)", policy.Mode, err)
		}
	}
	if dir == "" {
		dir = cwd
	}
	spec := helperSpec{Policy: policy, Roots: WritableRoots(policy, cwd), Dir: absolute("", dir), TTY: tty}
	spec.Namespaces = restricted && namespacesAvailable()
	if policy.Mode == protocol.SandboxWorkspaceWrite {
		spec.Protect = homesWithin(spec.Roots)
	}
	if spec.Namespaces && policy.Mode == protocol.SandboxWorkspaceWrite {
		if err := claimPlaceholders(spec.Roots, spec.Protect); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	watch := parentWatch()
	if watch != nil {
		spec.ParentFD = 3 // ExtraFiles[0]
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	self, err := helperBinary()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, append([]string{HelperArg, string(raw), "--"}, argv...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = helperProcAttr(spec.Namespaces)
	if watch != nil {
		cmd.ExtraFiles = []*os.File{watch}
	}
	// CommandContext's default kill would take only the helper; ask it to
	// take the tree down instead (Stop escalates to SIGKILL itself).
	cmd.Cancel = func() error { return Stop(cmd) }
	cmd.WaitDelay = stopGrace
	return cmd, nil
}

// helperOverride replaces this binary as the helper (benchmarks measure
// the real grove binary with it).
var helperOverride string

// helperBinary names this very binary. /proc/self/exe, resolved by the
// kernel in the forked child, stays right when the file on disk was
// replaced or deleted meanwhile (an upgrade during a session), so the
// helper always speaks the parent's protocol.
func helperBinary() (string, error) {
	if helperOverride != "" {
		return helperOverride, nil
	}
	const procSelf = "/proc/self/exe"
	if _, err := os.Stat(procSelf); err == nil {
		return procSelf, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: locate the grove binary for the sandbox helper: %w", err)
	}
	return self, nil
}
