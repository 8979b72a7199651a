//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/core/shellenv"
)

// NamespacesEnv set to "off" makes grove run the sandbox helper without
// user, mount and PID namespaces, as on a host that forbids them
// (kernel.unprivileged_userns_clone=0, most containers): to see, and
// test, what such a host gets. It only ever weakens the sandbox to
// Landlock and seccomp; it never widens a policy.
const NamespacesEnv = "GROVE_SANDBOX_NAMESPACES"

// HardenProcess makes this process non-dumpable: its /proc files
// (environ, mem, fds) become unreadable to other processes of the user
// unless they hold CAP_SYS_PTRACE, so no command (sandboxed or escalated)
// can read grove's environment, which holds the provider key, nor a
// helper's. It also keeps core dumps of grove from writing the key to
// disk. An exec'd child is dumpable again (the kernel resets it), so the
// commands themselves are unaffected. grove's main and every helper call
// it.
func HardenProcess() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the process non-dumpable: %w", err)
	}
	return nil
}

// helperEnv is the environment a helper starts with: the scrubbed one
// commands get, never grove's own. Without a PID namespace the helper is
// the parent of the commands it starts, and its environment must hold
// no secret for them to find (issue 21: /proc/$PPID/environ).
func helperEnv() []string {
	env := shellenv.Environ(nil)
	if v, ok := os.LookupEnv(NamespacesEnv); ok {
		env = shellenv.WithExtra(env, map[string]string{NamespacesEnv: v})
	}
	return env
}

// dropBoundingSet empties the capability bounding set, so no command this
// helper starts gains a capability at execve, not even as root (the kernel
// otherwise gives uid 0 every capability of the bounding set). Without a
// user namespace root's capabilities are the host's: CAP_SYS_PTRACE reads
// any process's /proc files (grove's environment, non-dumpable or not),
// CAP_MKNOD makes a block device inside a writable root (Landlock checks
// the path, not the disk behind it), CAP_SYS_MODULE loads kernel code.
// The helper keeps its own (it may still need CAP_SYS_ADMIN in its user
// namespace for the commands' PID namespaces). A user who is not root has
// no CAP_SETPCAP and nothing to drop: EPERM is not an error then.
func dropBoundingSet() error {
	last := unix.CAP_LAST_CAP
	if raw, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL):
		case errors.Is(err, unix.EPERM):
			if has, _ := effectiveCap(unix.CAP_SETPCAP); has {
				return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
			}
			return nil
		default:
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}

// effectiveCap reports whether this thread holds capability c.
func effectiveCap(c int) (bool, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, err
	}
	return data[c/32].Effective&(1<<(c%32)) != 0, nil
}

// dropThreadCapabilities is what a thread that starts restricted commands
// gives up for them: the bounding, ambient and inheritable sets (the helper gets
// CAP_SYS_ADMIN as ambient to mount in its user namespace). Both are per
// thread, so every thread that forks a command calls it.
func dropThreadCapabilities() error {
	if err := dropBoundingSet(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("drop ambient capabilities: %w", err)
	}
	// Root's execve adds the inheritable set whatever the bounding set
	// says (raising the ambient CAP_SYS_ADMIN put it there).
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop inheritable capabilities: %w", err)
	}
	return nil
}

func namespacesDisabled() bool { return os.Getenv(NamespacesEnv) == "off" }
