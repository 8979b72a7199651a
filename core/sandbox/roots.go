package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grovecli/grove/core/tools/safefile"
	"github.com/grovecli/grove/protocol"
)

// WritableRoots lists where policy lets commands and patches write, with
// symlinks resolved: under workspace-write the thread's cwd (first), the
// policy's writable_roots (relative ones against cwd) and the temp
// directories (TempRoots). Other modes have none: read-only writes
// nowhere, danger-full-access is not confined.
func WritableRoots(policy protocol.SandboxPolicy, cwd string) []string {
	if policy.Mode != protocol.SandboxWorkspaceWrite {
		return nil
	}
	cwd = absolute("", cwd)
	candidates := append([]string{cwd}, policy.WritableRoots...)
	candidates = append(candidates, TempRoots(policy)...)
	var roots []string
	for _, r := range candidates {
		if r == "" {
			continue
		}
		real, err := resolve(absolute(cwd, r))
		if err != nil {
			continue // a root that loops cannot be written through anyway
		}
		if !slices.Contains(roots, real) {
			roots = append(roots, real)
		}
	}
	return roots
}

// TempRoots are the temp directories workspace-write makes writable, as
// Codex's SandboxPolicy::get_writable_roots_with_cwd has them: /tmp when
// it is a directory, unless exclude_slash_tmp; $TMPDIR when set to an
// absolute path, unless exclude_tmpdir_env_var. Each key removes its own
// entry only: with TMPDIR=/tmp, exclude_slash_tmp alone leaves /tmp
// writable (through $TMPDIR), as in Codex. An unset TMPDIR adds nothing
// (not os.TempDir()'s /tmp fallback, which would undo exclude_slash_tmp).
func TempRoots(policy protocol.SandboxPolicy) []string {
	var out []string
	if !policy.ExcludeSlashTmp {
		if st, err := os.Stat(slashTmp); err == nil && st.IsDir() {
			out = append(out, slashTmp)
		}
	}
	if tmp := os.Getenv("TMPDIR"); !policy.ExcludeTmpdirEnvVar && tmp != "" && filepath.IsAbs(tmp) {
		out = append(out, tmp)
	}
	return out
}

// slashTmp is the Unix temp directory Codex's workspace-write allows.
const slashTmp = "/tmp"

// WritableTempDir is the temp directory to name in a command's TMPDIR:
// the first temp root the policy makes writable, resolved ("" when none
// is, and always for other modes: the command keeps the TMPDIR it
// inherits). $TMPDIR comes first, so a user's own TMPDIR is kept.
func WritableTempDir(policy protocol.SandboxPolicy) string {
	if policy.Mode != protocol.SandboxWorkspaceWrite {
		return ""
	}
	roots := TempRoots(policy)
	slices.Reverse(roots)
	for _, r := range roots {
		if real, err := resolve(r); err == nil {
			return real
		}
	}
	return ""
}

// AllTempRoots are the temp directories any workspace-write sandbox may
// make writable, whatever its exclusions: what a sandboxed command of any
// session could have written (login profiles, planted links).
func AllTempRoots() []string { return safefile.TempDirs() }

// CheckWritable reports whether policy lets path (absolute, or relative to
// cwd) be written; apply_patch obeys the same roots as commands. Symlinks
// are followed as the kernel would follow them when the file is written,
// including a dangling link and a not yet existing tail, so a link inside
// the workspace cannot carry a write outside it.
func CheckWritable(policy protocol.SandboxPolicy, cwd, path string) error {
	switch policy.Mode {
	case protocol.SandboxDangerFullAccess:
		return nil
	case protocol.SandboxReadOnly:
		return fmt.Errorf("%s is not writable: the sandbox is read-only (no writable roots)", path)
	case protocol.SandboxWorkspaceWrite:
	default:
		return fmt.Errorf("%s is not writable: unknown sandbox mode %q", path, policy.Mode)
	}
	cwd = absolute("", cwd)
	real, err := resolve(absolute(cwd, path))
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", path, err)
	}
	roots := WritableRoots(policy, cwd)
	for _, r := range roots {
		if within(r, real) {
			for _, h := range configHomes() {
				if within(h, real) {
					return fmt.Errorf("%s is inside %s, agent configuration that stays read-only under workspace-write (it says what runs at the next start)", path, h)
				}
			}
			if prot := protectedPath(r, real); prot != "" {
				return fmt.Errorf("%s is inside %s, which stays read-only under workspace-write (repository metadata and agent configuration are protected at any depth)", path, prot)
			}
			return nil
		}
	}
	where := path
	if real != filepath.Clean(absolute(cwd, path)) {
		where = fmt.Sprintf("%s (resolves to %s)", path, real)
	}
	return fmt.Errorf("%s is outside the writable roots of this sandbox (workspace-write: %s)", where, strings.Join(roots, ", "))
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// absolute makes p absolute against cwd (or the process's directory)
// without cleaning it: ".." must be applied by resolve, after symlinks.
func absolute(cwd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(p)
		}
		cwd = wd
	}
	return cwd + string(filepath.Separator) + p
}

// resolve follows every symlink of an absolute path like the kernel's
// path walk (one implementation with apply_patch's path pinning, so the
// sandbox and the patch writer agree on where a path leads).
func resolve(p string) (string, error) { return safefile.Resolve(p, false) }

// CheckWorkdir resolves a command's working directory (relative to the
// thread's cwd, symlinks followed) and refuses one outside the thread's
// workspace under a restricted policy: the cwd and, under workspace-write,
// the writable roots. A working directory never adds a root; this check
// keeps the model from believing it could. danger-full-access allows any
// directory.
func CheckWorkdir(policy protocol.SandboxPolicy, cwd, workdir string) (string, error) {
	cwd = absolute("", cwd)
	dir := cwd
	if workdir != "" {
		dir = absolute(cwd, workdir)
	}
	real, err := resolve(dir)
	if err != nil {
		return "", fmt.Errorf("workdir %s: %w", workdir, err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("workdir %s is not a directory", dir)
	}
	if policy.Mode == protocol.SandboxDangerFullAccess {
		return real, nil
	}
	allowed := WritableRoots(policy, cwd)
	if rc, err := resolve(cwd); err == nil {
		allowed = append([]string{rc}, allowed...)
	}
	for _, r := range allowed {
		if within(r, real) {
			return real, nil
		}
	}
	where := dir
	if real != filepath.Clean(dir) {
		where = fmt.Sprintf("%s (resolves to %s)", dir, real)
	}
	return "", fmt.Errorf("workdir %s is outside this thread's workspace (%s sandbox: %s); a workdir never widens the sandbox — run inside the workspace, or `cd` there in the command if you only need to read", where, policy.Mode, strings.Join(slices.Compact(allowed), ", "))
}
