package tools

import (
	"path/filepath"
	"strings"
)

// Claude Code's tools reference, "Bash tool behavior": "When Claude runs
// cd in the main session, the new working directory carries over to later
// Bash commands as long as it stays inside the project directory or an
// additional working directory … If cd lands outside those directories,
// Claude Code resets to the project directory and appends `Shell cwd was
// reset to <dir>` to the tool result." grove's project directory is the
// thread's working directory, its additional ones the sandbox policy's
// writable_roots.

// shellCwdReset is the note appended when the shell directory is reset.
const shellCwdReset = "Shell cwd was reset to "

// shellDirKept reports whether dir (physical, as `pwd -P` prints it) is
// inside the thread's working directory or one of the policy's
// writable_roots, symlinks resolved.
func shellDirKept(env *Env, dir string) bool {
	roots := append([]string{env.Cwd}, env.Sandbox.WritableRoots...)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(env.Cwd, r)
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		if rel, err := filepath.Rel(r, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}
