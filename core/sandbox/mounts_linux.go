//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"
)

// setupMounts runs in the helper's private mount namespace, before
// Landlock (which then forbids any further mount change). It makes every
// mount read-only except the writable roots, so metadata writes Landlock
// does not cover (chmod, chown, utime, xattrs) fail with EROFS outside the
// roots, and binds the protected paths inside the roots (at any depth)
// read-only. /dev/shm becomes a private tmpfs (privateShm). The rest of
// /dev, /proc and /sys are left as they are: device nodes are governed by
// Landlock, and the pseudo file systems by their own permissions.
func setupMounts(spec helperSpec) error {
	if err := mountProc(); err != nil {
		return err
	}
	if err := privateShm(); err != nil {
		return err
	}
	var writable []string
	if spec.Policy.Mode == protocol.SandboxWorkspaceWrite {
		writable = spec.Roots
	}
	// A root becomes a mount of its own, so remounting the file system it
	// lives on read-only leaves it writable.
	for _, r := range writable {
		if err := unix.Mount(r, r, "", unix.MS_BIND|unix.MS_REC, ""); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("bind the writable root %s: %w", r, err)
		}
	}
	points, err := mountPoints()
	if err != nil {
		return err
	}
	for _, m := range points {
		if underAny(m, writable) || underAny(m, []string{"/dev", "/proc", "/sys"}) {
			continue
		}
		// Best effort per mount: one the namespace cannot reach (hidden
		// under another) cannot be written through either.
		_ = remountReadOnly(m)
	}
	if err := bindProtectedReadOnly(spec.Roots, spec.Protect); err != nil {
		return err
	}
	// The cwd still points into the mounts as they were; enter it again.
	if spec.Dir != "" {
		if err := os.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("enter %s: %w", spec.Dir, err)
		}
	}
	return nil
}

// privateShm mounts an empty tmpfs of this namespace over /dev/shm, as
// Codex's bubblewrap sandbox does (`--dev /dev` makes a fresh /dev whose
// shm is an empty directory of its own tmpfs): POSIX shared memory and
// named semaphores (Python's multiprocessing, Chromium) work among the
// sandbox's processes, while the user's real /dev/shm (other programs'
// segments, files that outlive the command) can be neither read nor
// written. It lives as long as the helper: the commands of one sandbox
// share it, like /tmp.
func privateShm() error {
	if _, err := os.Stat("/dev/shm"); os.IsNotExist(err) {
		return nil
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("mount a private /dev/shm: %w", err)
	}
	return nil
}

// mountProc mounts a /proc of the helper's own PID namespace: psx (which
// Landlock uses to restrict every thread) finds the threads through
// /proc/self, and the command sees only its own processes.
func mountProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc for the sandbox: %w", err)
	}
	return nil
}

// remountReadOnly makes the mount at p read-only, keeping the flags a user
// namespace may not clear (nosuid, nodev, noexec, atime).
func remountReadOnly(p string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	return unix.Mount("", p, "", flags, "")
}

// mountPoints lists the mount points of this namespace, parents first.
func mountPoints() ([]string, error) {
	raw, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("list the mounts: %w", err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 4 {
			out = append(out, unescapeMount(f[4]))
		}
	}
	return out, sc.Err()
}

// unescapeMount decodes the octal escapes of mountinfo (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// bindProtectedReadOnly binds every protected path of the roots (see
// FindProtected) and the configuration directories inside them (homes)
// read-only over itself. A path whose real location is
// outside the roots is read-only already.
func bindProtectedReadOnly(roots, homes []string) error {
	var done []string
	lists := [][]string{homes}
	for _, r := range scannedRoots(roots) {
		paths, err := FindProtected(r)
		if err != nil {
			return err
		}
		lists = append(lists, paths)
	}
	for _, paths := range lists {
		for _, p := range paths {
			real, err := filepath.EvalSymlinks(p)
			if err != nil || !underAny(real, roots) || underAny(real, done) {
				continue // dangling, outside the roots, or covered
			}
			if err := unix.Mount(real, real, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("bind %s: %w", real, err)
			}
			if err := remountReadOnly(real); err != nil {
				return fmt.Errorf("make %s read-only: %w", real, err)
			}
			done = append(done, real)
		}
	}
	return nil
}

// refuseUncoverable is the rule without a mount namespace: Landlock only
// allows, it cannot carve a read-only .git out of a writable root, so a
// workspace-write command does not run while a root holds a protected
// path (issue 21: sub/.git/hooks and .grove/agents were written).
func refuseUncoverable(spec helperSpec) error {
	if spec.Namespaces || spec.Policy.Mode != protocol.SandboxWorkspaceWrite {
		return nil
	}
	for _, h := range spec.Protect {
		if _, err := os.Lstat(h); err == nil && !isEmptyDir(h) {
			return fmt.Errorf("workspace-write cannot keep %s (agent configuration: what runs at the next start) read-only on this host: it is inside a writable root and without user namespaces the sandbox (Landlock) can only allow whole directories. Move it out of the writable roots (GROVE_HOME, CODEX_HOME, HOME outside the temp directory and the project), enable unprivileged user namespaces, or use sandbox_mode = \"read-only\"", h)
		}
	}
	for _, r := range scannedRoots(spec.Roots) {
		paths, err := FindProtected(r)
		if err != nil {
			return err
		}
		// An empty directory holds nothing to protect (git skips an empty
		// .git; grove's placeholders are such); filled by a command, it
		// is moved aside afterwards (quarantineNew).
		paths = slices.DeleteFunc(paths, isEmptyDir)
		if len(paths) > 0 {
			return fmt.Errorf("workspace-write cannot keep %s read-only on this host: without user namespaces the sandbox (Landlock) can only allow whole directories. Enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or run outside a container that forbids them; `grove doctor` says what is missing), or use sandbox_mode = \"read-only\" (commands that write then ask to run outside the sandbox)", paths[0])
		}
	}
	return nil
}
