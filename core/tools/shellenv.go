package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/core/tools/safefile"
)

// loginEnv is a snapshot of the environment a login shell sets up. Taking
// it once and running each command with `bash -c` in that environment
// gives commands what `bash -lc` would, without re-running the profile
// scripts every time (on a typical machine they cost ~100 ms a command and
// may try to write outside the sandbox).
//
// The snapshot runs the user's profiles outside the sandbox, so it is
// refused when one of them lies where a sandboxed command could have
// written it (issue 31 item 13: with HOME under the temp dir, a
// model-appended ~/.bash_profile ran in the next grove's `bash -lc env`,
// and its variables — a PATH in front — reached escalated commands).
// Refused, commands run `bash -c` (no login shell, also not inside the
// sandbox: an escalated command would run the profile outside it) in
// grove's own environment, scrubbed.
var loginEnv struct {
	once    sync.Once
	env     []string
	refused string // why the profiles were not run ("" = they were)
}

// loginProfiles are the files `bash -l` reads (and ~/.bashrc, which
// nearly every ~/.bash_profile sources); BASH_ENV and ENV name more.
func loginProfiles() []string {
	out := []string{"/etc/profile", "/etc/profile.d", "/etc/bash.bashrc"}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, f := range []string{".bash_profile", ".bash_login", ".profile", ".bashrc"} {
			out = append(out, filepath.Join(home, f))
		}
	}
	for _, v := range []string{"BASH_ENV", "ENV"} {
		if p := os.Getenv(v); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writableProfile names the first login profile inside one of roots (or
// that would be created there), and that root.
func writableProfile(roots []string) (profile, root string) {
	for _, p := range loginProfiles() {
		real := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real = r // a dotfile symlinked into a repository counts where it points
		} else if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			real = filepath.Join(d, filepath.Base(p)) // absent: where it would be made
		}
		for _, r := range roots {
			if rr, err := filepath.EvalSymlinks(r); err == nil {
				r = rr
			}
			if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return p, r
			}
		}
	}
	return "", ""
}

// PrepareLoginEnvironment takes the login snapshot now, before any
// command of the session runs, unless a profile lies inside roots (the
// session's writable roots: its cwd, writable_roots, the temp dir,
// /dev/shm); then it returns a warning naming the profile and the root.
func PrepareLoginEnvironment(roots []string) (warning string) {
	loginEnv.once.Do(func() {
		if p, r := writableProfile(roots); p != "" {
			loginEnv.refused = fmt.Sprintf("login profile %s is inside %s, where a sandboxed command could have written it: "+
				"grove does not run it (commands start from grove's own environment, without a login shell)", p, r)
			return
		}
		loginEnv.env = takeLoginSnapshot()
	})
	return loginEnv.refused
}

// loginEnvironment returns the snapshot, or nil when it cannot be taken
// (then commands fall back to `bash -lc`) or was refused.
func loginEnvironment() []string {
	loginEnv.once.Do(func() {
		// Not prepared (a test, a front end that did not): the temp dir is
		// a writable root of every workspace-write sandbox; /dev/shm any
		// program of the user can write.
		if p, r := writableProfile(append(safefile.TempDirs(), "/dev/shm")); p != "" {
			loginEnv.refused = fmt.Sprintf("login profile %s is inside %s, where a sandboxed command could have written it: grove does not run it", p, r)
			return
		}
		loginEnv.env = takeLoginSnapshot()
	})
	return loginEnv.env
}

// takeLoginSnapshot runs `bash -lc 'env -0'` and keeps what it exports.
func takeLoginSnapshot() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-lc", "env -0")
	cmd.Stdin = nil
	cmd.Stderr = nil
	cmd.Dir = os.TempDir()
	// A profile's background child can hold stdout open after bash is
	// killed at the timeout: stop waiting for it a second later.
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil || len(out) == 0 {
		return nil
	}
	var env []string
	for _, kv := range bytes.Split(out, []byte{0}) {
		s := string(kv)
		if i := strings.IndexByte(s, '='); i > 0 {
			switch s[:i] {
			case "PWD", "OLDPWD", "SHLVL", "_":
				continue // per-process values
			}
			env = append(env, s)
		}
	}
	return env
}

// shellCommand returns argv and environment for running cmd like
// `bash -lc cmd`, the environment scrubbed by the shell environment policy
// (core/shellenv); extra entries (grove's own) are appended last and win.
func shellCommand(cmd string, extra ...string) ([]string, []string) {
	p := shellenv.Current()
	if env := loginEnvironment(); env != nil {
		return []string{"bash", "-c", cmd}, append(shellenv.Build(env, p), extra...)
	}
	if loginEnv.refused != "" {
		return []string{"bash", "-c", cmd}, append(shellenv.Build(os.Environ(), p), extra...)
	}
	return []string{"bash", "-lc", cmd}, append(shellenv.Build(os.Environ(), p), extra...)
}

// PolicyEnviron is grove's own environment scrubbed by the shell
// environment policy (shellenv.Environ): what a program grove starts for
// the user (Codex's `notify`) may see. API keys never reach it.
func PolicyEnviron() []string { return shellenv.Environ(nil) }
