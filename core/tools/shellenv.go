package tools

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/shellenv"
)

// loginEnv is a snapshot of the environment a login shell sets up. Taking
// it once and running each command with `bash -c` in that environment
// gives commands what `bash -lc` would, without re-running the profile
// scripts every time (on a typical machine they cost ~100 ms a command and
// may try to write outside the sandbox).
var loginEnv struct {
	once sync.Once
	env  []string
}

// loginEnvironment returns the snapshot, or nil when it cannot be taken
// (then commands fall back to `bash -lc`).
func loginEnvironment() []string {
	loginEnv.once.Do(func() {
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
			return
		}
		for _, kv := range bytes.Split(out, []byte{0}) {
			s := string(kv)
			if i := strings.IndexByte(s, '='); i > 0 {
				switch s[:i] {
				case "PWD", "OLDPWD", "SHLVL", "_":
					continue // per-process values
				}
				loginEnv.env = append(loginEnv.env, s)
			}
		}
	})
	return loginEnv.env
}

// shellCommand returns argv and environment for running cmd like
// `bash -lc cmd`, the environment scrubbed by the shell environment policy
// (core/shellenv); extra entries (grove's own) are appended last and win.
func shellCommand(cmd string, extra ...string) ([]string, []string) {
	p := shellenv.Current()
	if env := loginEnvironment(); env != nil {
		return []string{"bash", "-c", cmd}, append(shellenv.Build(env, p), extra...)
	}
	return []string{"bash", "-lc", cmd}, append(shellenv.Build(os.Environ(), p), extra...)
}

// PolicyEnviron is grove's own environment scrubbed by the shell
// environment policy (shellenv.Environ): what a program grove starts for
// the user (Codex's `notify`) may see. API keys never reach it.
func PolicyEnviron() []string { return shellenv.Environ(nil) }
