package sandbox

import "runtime"

// HostReport is what this host's sandbox enforces (grove doctor).
type HostReport struct {
	OS string
	// LandlockABI is 0 when the kernel has no Landlock (LandlockErr says
	// why): read-only and workspace-write then refuse to run.
	LandlockABI int
	LandlockErr string
	// Namespaces: the helper runs in its own user, mount and PID
	// namespaces. NamespacesOff: GROVE_SANDBOX_NAMESPACES=off asked not to.
	Namespaces    bool
	NamespacesOff bool
}

// LostWithoutNamespaces is what a host without user namespaces
// (kernel.unprivileged_userns_clone=0, most containers) does not get; the
// rest (Landlock file and TCP rules, the seccomp filter, a session without
// a terminal, the scrubbed environment, no capabilities) holds either way.
var LostWithoutNamespaces = []string{
	"protected paths (.git, .grove, .codex, .agents, .claude, .mcp.json at any depth): cannot be kept read-only, so workspace-write refuses to run in a writable root that holds one",
	"chmod, chown, utime and xattr changes outside the writable roots under workspace-write (no read-only remount)",
	"a PID namespace: commands see every process of the host in /proc; kill -1 is refused by seccomp, other signals are scoped by Landlock (ABI >= 6)",
	"isolation between the commands of one sandbox: they share a Landlock domain and may signal each other",
	"the per-sandbox process bound (RLIMIT_NPROC 1024)",
	"a private /dev/shm: the user's is read-only to commands, so POSIX shared memory and named semaphores (Python multiprocessing locks, Chromium) fail",
	"orphans a command leaves in a session of their own (setsid) die when no command of that sandbox runs, not with the command",
}

// Doctor probes the host (the namespace probe starts the helper once).
func Doctor() HostReport {
	r := HostReport{OS: runtime.GOOS, NamespacesOff: namespacesDisabled()}
	abi, err := Supported()
	if err != nil {
		r.LandlockErr = err.Error()
	} else {
		r.LandlockABI = abi
	}
	r.Namespaces = namespacesAvailable()
	return r
}
