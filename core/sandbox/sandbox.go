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
	"path/filepath"
	"strings"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/grovecli/grove/protocol"
)

// HelperArg is argv[1] of the re-exec'd sandbox helper.
const HelperArg = "__grove_sandbox_exec"

// abiProbe reports the kernel's Landlock ABI (tests replace it).
var abiProbe = func() (int, error) { return llsys.LandlockGetABIVersion() }

// Supported returns the Landlock ABI version, or an error when the kernel
// has no Landlock.
func Supported() (int, error) {
	abi, err := abiProbe()
	if err != nil || abi < 1 {
		if err == nil {
			err = errors.New("Landlock ABI 0")
		}
		return 0, fmt.Errorf("Landlock is not available on this kernel: %w", err)
	}
	return abi, nil
}

// helperSpec is what the helper receives.
type helperSpec struct {
	Policy protocol.SandboxPolicy `json:"policy"`
	Roots  []string               `json:"roots"`
}

// Command builds the command that runs argv in cwd under policy.
// danger-full-access runs it directly; restricted modes run it through the
// helper, and refuse (never run unconfined) when Landlock is missing.
func Command(ctx context.Context, policy protocol.SandboxPolicy, cwd string, argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if policy.Mode == protocol.SandboxDangerFullAccess {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = cwd
		return cmd, nil
	}
	if policy.Mode != protocol.SandboxReadOnly && policy.Mode != protocol.SandboxWorkspaceWrite {
		return nil, fmt.Errorf("sandbox: unknown mode %q", policy.Mode)
	}
	if _, err := Supported(); err != nil {
		return nil, fmt.Errorf("sandbox mode %s requires Landlock, which this kernel does not provide (%v); set sandbox_mode = \"danger-full-access\" to run unconfined", policy.Mode, err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: locate grove binary: %w", err)
	}
	spec, err := json.Marshal(helperSpec{Policy: policy, Roots: WritableRoots(policy, cwd)})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	args := append([]string{HelperArg, string(spec), "--"}, argv...)
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Dir = cwd
	return cmd, nil
}

// WritableRoots lists where a policy lets commands and patches write.
func WritableRoots(policy protocol.SandboxPolicy, cwd string) []string {
	if policy.Mode != protocol.SandboxWorkspaceWrite {
		return nil
	}
	roots := []string{cwd}
	roots = append(roots, policy.WritableRoots...)
	roots = append(roots, os.TempDir())
	out := make([]string, 0, len(roots))
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(cwd, r)
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// CheckWritable reports whether policy lets path be written (apply_patch
// obeys the same roots as commands). Symlinks are resolved through the
// nearest existing parent.
func CheckWritable(policy protocol.SandboxPolicy, cwd, path string) error {
	switch policy.Mode {
	case protocol.SandboxDangerFullAccess:
		return nil
	case protocol.SandboxReadOnly:
		return fmt.Errorf("%s: the sandbox is read-only", path)
	}
	real := resolveExisting(path)
	roots := WritableRoots(policy, cwd)
	for _, r := range roots {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return nil
		}
	}
	return fmt.Errorf("%s is outside the writable roots of this sandbox (workspace-write: %s)", path, strings.Join(roots, ", "))
}

// resolveExisting resolves symlinks of the longest existing prefix of p.
func resolveExisting(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for cur := p; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = append(rest, filepath.Base(cur))
	}
}
