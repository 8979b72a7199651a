//go:build linux

package sandbox

import (
	"os"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/grovecli/grove/protocol"
)

// devReadable are the device nodes a command may read: /dev holds the
// user's terminals (/dev/pts/N, /dev/tty*: reading one steals keystrokes,
// writing one types into another program), input devices and more, so
// only these are granted (issue 21: a command wrote text and an OSC
// title sequence into another process's /dev/pts/N).
var devReadable = []string{"/dev/random", "/dev/urandom"}

// devWritable are the device nodes a command may write: the null-like
// ones, and /dev/tty. /dev/tty is always the opener's own controlling
// terminal: a plain command has none (it runs in a new session, the open
// fails), a tty session's is the pseudo-terminal grove made for it (a
// password prompt, less, ssh reopen it). No other terminal: /dev/pts/N
// and a new pseudo-terminal (/dev/ptmx) stay refused.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// landlockRules turns a restricted policy into a Landlock ruleset.
//
//   - Read and execute everywhere but /dev (every top-level entry of /
//     but /dev is granted; a directory made at the top level after the
//     helper started is not readable); in /dev only devReadable,
//     devWritable and /dev/shm, and listing it.
//   - Writable in every restricted mode: devWritable, and /dev/shm when it
//     is the sandbox's private tmpfs (namespaces, see privateShm), as in
//     Codex's bubblewrap sandbox in both modes. Without namespaces it is
//     the user's real one, shared with every other program, and stays
//     read-only, as in Codex's Landlock sandbox (only /dev/null).
//   - workspace-write adds the roots (the thread's cwd, writable_roots, the
//     temp dir), including moving files between their directories
//     ("refer"; without it a cross-directory rename fails with EXDEV).
//   - Network: with ABI >= 4 and no network_access, TCP connect and bind
//     are denied in both restricted modes (no port is allowed); the seccomp
//     filter covers the rest (UDP, raw, netlink, connecting Unix sockets).
//   - Scopes (ABI >= 6): signals only reach processes of the same sandbox,
//     so a sandboxed `kill -9 -1` cannot take down grove or the user's
//     programs, and abstract Unix sockets outside it cannot be reached.
//
// BestEffort drops what an older kernel cannot enforce instead of failing.
func landlockRules(spec helperSpec) (landlock.Config, []landlock.Rule) {
	shm := landlock.RODirs("/dev/shm").IgnoreIfMissing()
	if spec.Namespaces {
		shm = landlock.RWDirs("/dev/shm").IgnoreIfMissing()
	}
	rules := append(readRules(), shm,
		landlock.ROFiles(devReadable...).IgnoreIfMissing(),
		landlock.RWFiles(devWritable...).IgnoreIfMissing(),
	)
	if spec.Policy.Mode == protocol.SandboxWorkspaceWrite && len(spec.Roots) > 0 {
		rules = append(rules, landlock.RWDirs(spec.Roots...).WithRefer().IgnoreIfMissing())
	}
	cfg := landlock.V5.BestEffort()
	cfg.Scoped = landlock.ScopedSet(llsys.ScopeSignal | llsys.ScopeAbstractUnixSocket)
	if spec.Policy.NetworkAccess {
		cfg.HandledAccessNet = 0 // not handled: all TCP allowed
		cfg.Scoped = landlock.ScopedSet(llsys.ScopeSignal)
	}
	return cfg, rules
}

// readRules grants reading and executing every top-level entry of / but
// /dev, and listing / itself.
func readRules() []landlock.Rule {
	rules := []landlock.Rule{landlock.PathAccess(llsys.AccessFSReadDir, "/")}
	entries, err := os.ReadDir("/")
	if err != nil {
		// Cannot list /: grant it whole rather than nothing (no terminal
		// protection, but commands work); /dev is still not writable.
		return []landlock.Rule{landlock.RODirs("/")}
	}
	var dirs, files []string
	for _, e := range entries {
		p := filepath.Join("/", e.Name())
		if p == "/dev" {
			continue
		}
		st, err := os.Stat(p) // follows /bin -> usr/bin
		switch {
		case err != nil:
		case st.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	if len(dirs) > 0 {
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	return rules
}
