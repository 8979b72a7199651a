//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/grovecli/grove/protocol"
)

// MaybeRunHelper turns this process into the sandbox helper when it was
// started as one (os.Args[1] == HelperArg): it restricts itself with
// Landlock and execs the command after "--", never returning; on any
// failure it says why on stderr and exits 126 without running the command.
// Otherwise it returns at once. main and the TestMain of every package that
// runs sandboxed commands call it first.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	err := runHelper(os.Args[2:])
	// runHelper returns only on failure: a successful exec replaced us.
	fmt.Fprintf(os.Stderr, "grove sandbox: %v\n", err)
	os.Exit(126)
}

func runHelper(args []string) error {
	spec, argv, err := parseHelperArgs(args)
	if err != nil {
		return err
	}
	// BestEffort would silently enforce nothing on a kernel without
	// Landlock; the helper must never run a command unconfined.
	if _, err := Supported(); err != nil {
		return err
	}
	cfg, rules := landlockRules(spec)
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("apply the %s sandbox with Landlock: %w", spec.Policy.Mode, err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("command %s: %w", argv[0], err)
	}
	err = syscall.Exec(path, argv, os.Environ())
	return fmt.Errorf("exec %s: %w", path, err)
}

// parseHelperArgs reads `POLICY_JSON -- COMMAND [ARGS...]`.
func parseHelperArgs(args []string) (helperSpec, []string, error) {
	var spec helperSpec
	if len(args) < 3 || args[1] != "--" {
		return spec, nil, fmt.Errorf("usage: %s POLICY_JSON -- COMMAND [ARGS...] (got %d arguments)", HelperArg, len(args))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(args[0])))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return spec, nil, fmt.Errorf("decode the sandbox policy %q: %w", args[0], err)
	}
	switch spec.Policy.Mode {
	case protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite:
	default:
		return spec, nil, fmt.Errorf("the helper only applies read-only or workspace-write, not %q", spec.Policy.Mode)
	}
	for _, r := range spec.Roots {
		if !filepath.IsAbs(r) {
			return spec, nil, fmt.Errorf("writable root %q is not absolute", r)
		}
	}
	return spec, args[2:], nil
}

// landlockRules turns a restricted policy into a Landlock ruleset.
//
//   - Read and execute everywhere.
//   - Writable in every restricted mode: the null-like devices and the
//     terminal (with ioctl, which terminals need).
//   - workspace-write adds the roots (the cwd, writable_roots, the temp dir)
//     and /dev/shm, including moving files between their directories
//     ("refer"; without it a cross-directory rename fails with EXDEV).
//   - Network: with ABI >= 4 and no network_access, TCP connect and bind
//     are denied in both restricted modes (no port is allowed). UNIX
//     sockets keep working: pathname sockets are only restricted from ABI 9
//     and abstract ones by a scope this ruleset does not set. UDP is not
//     restrictable before ABI 10 and stays open.
//   - Signals (ABI >= 6) only reach processes of the same sandbox, so a
//     sandboxed `kill -9 -1` cannot take down grove or the user's programs.
//
// BestEffort drops what an older kernel cannot enforce instead of failing.
func landlockRules(spec helperSpec) (landlock.Config, []landlock.Rule) {
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if spec.Policy.Mode == protocol.SandboxWorkspaceWrite {
		roots := append([]string{"/dev/shm"}, spec.Roots...)
		rules = append(rules, landlock.RWDirs(roots...).WithRefer().IgnoreIfMissing())
	}
	cfg := landlock.V5.BestEffort()
	cfg.Scoped = landlock.ScopedSet(llsys.ScopeSignal)
	if spec.Policy.NetworkAccess {
		cfg.HandledAccessNet = 0 // not handled: all TCP allowed
	}
	return cfg, rules
}
