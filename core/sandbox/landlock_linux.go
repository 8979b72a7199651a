//go:build linux

package sandbox

import (
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/grovecli/grove/protocol"
)

// landlockRules turns a restricted policy into a Landlock ruleset.
//
//   - Read and execute everywhere.
//   - Writable in every restricted mode: the null-like devices, and new
//     pseudo-terminals (/dev/ptmx, /dev/pts, with the ioctls terminals
//     need; TIOCSTI and TIOCLINUX are denied by the seccomp filter, and the
//     command has no controlling terminal). /dev/tty is not writable.
//   - workspace-write adds the roots (the thread's cwd, writable_roots, the
//     temp dir) and /dev/shm, including moving files between their
//     directories ("refer"; without it a cross-directory rename fails with
//     EXDEV).
//   - Network: with ABI >= 4 and no network_access, TCP connect and bind
//     are denied in both restricted modes (no port is allowed); the seccomp
//     filter covers the rest (UDP, raw, netlink, connecting Unix sockets).
//   - Scopes (ABI >= 6): signals only reach processes of the same sandbox,
//     so a sandboxed `kill -9 -1` cannot take down grove or the user's
//     programs, and abstract Unix sockets outside it cannot be reached.
//
// BestEffort drops what an older kernel cannot enforce instead of failing.
func landlockRules(spec helperSpec) (landlock.Config, []landlock.Rule) {
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
		landlock.RWFiles("/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if spec.Policy.Mode == protocol.SandboxWorkspaceWrite {
		roots := append([]string{"/dev/shm"}, spec.Roots...)
		rules = append(rules, landlock.RWDirs(roots...).WithRefer().IgnoreIfMissing())
	}
	cfg := landlock.V5.BestEffort()
	cfg.Scoped = landlock.ScopedSet(llsys.ScopeSignal | llsys.ScopeAbstractUnixSocket)
	if spec.Policy.NetworkAccess {
		cfg.HandledAccessNet = 0 // not handled: all TCP allowed
		cfg.Scoped = landlock.ScopedSet(llsys.ScopeSignal)
	}
	return cfg, rules
}
