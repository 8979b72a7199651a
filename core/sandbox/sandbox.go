// Package sandbox confines commands with the kernel (Landlock), not with
// string checks: a restricted command runs through a re-exec of this binary
// (the helper) that restricts itself, then execs the command. Writes
// outside the allowed roots fail with EACCES; TCP is blocked unless the
// policy allows network.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/grovecli/grove/protocol"
)

// HelperArg is argv[1] of the re-exec'd sandbox helper.
const HelperArg = "__grove_sandbox_exec"

// abiProbe reports the kernel's Landlock ABI (tests replace it).
var abiProbe = func() (int, error) { return llsys.LandlockGetABIVersion() }

// Supported returns the kernel's Landlock ABI version, or an error when the
// kernel has no Landlock (not built in, or not enabled at boot).
func Supported() (abi int, err error) {
	abi, err = abiProbe()
	if err != nil {
		return 0, fmt.Errorf("Landlock is not available on this kernel: %w", err)
	}
	if abi < 1 {
		return 0, fmt.Errorf("Landlock is not available on this kernel (ABI %d)", abi)
	}
	return abi, nil
}

// helperSpec is what the parent hands the helper (argv[2], JSON): the
// policy and the writable roots already resolved against the thread's cwd
// and the parent's temp dir.
type helperSpec struct {
	Policy protocol.SandboxPolicy `json:"policy"`
	Roots  []string               `json:"roots,omitempty"`
}

// Command builds the command that runs argv in cwd under policy.
// danger-full-access runs it directly; read-only and workspace-write run it
// through the helper, and are refused (never run unconfined) when the
// kernel has no Landlock. The caller owns the rest of the exec.Cmd
// (environment, stdio, process attributes).
func Command(ctx context.Context, policy protocol.SandboxPolicy, cwd string, argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	switch policy.Mode {
	case protocol.SandboxDangerFullAccess:
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = cwd
		return cmd, nil
	case protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite:
	default:
		return nil, fmt.Errorf("sandbox: unknown sandbox mode %q (want read-only, workspace-write or danger-full-access)", policy.Mode)
	}
	if _, err := Supported(); err != nil {
		return nil, fmt.Errorf("sandbox mode %s requires Landlock, which this kernel does not provide; set sandbox_mode = \"danger-full-access\" to run unconfined (%v)", policy.Mode, err)
	}
	spec, err := json.Marshal(helperSpec{Policy: policy, Roots: WritableRoots(policy, cwd)})
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	self, err := helperBinary()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, append([]string{HelperArg, string(spec), "--"}, argv...)...)
	cmd.Dir = cwd
	return cmd, nil
}

// helperBinary names this very binary. /proc/self/exe, resolved by the
// kernel in the forked child, stays right when the file on disk was
// replaced or deleted meanwhile (an upgrade during a session), so the
// helper always speaks the parent's protocol.
func helperBinary() (string, error) {
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
