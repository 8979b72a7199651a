package tools

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// ShellEnvPolicy decides which variables commands see (config
// `[shell_environment_policy]`, plus the providers' key variables).
type ShellEnvPolicy struct {
	// Secrets are exact names always dropped: every provider's env_key.
	Secrets []string
	// Exclude and IncludeOnly are case-insensitive globs.
	Exclude     []string
	IncludeOnly []string
	Set         map[string]string
	// IgnoreDefaultExcludes keeps what only DefaultSecretPatterns drop.
	IgnoreDefaultExcludes bool
}

// DefaultSecretPatterns are dropped unless IgnoreDefaultExcludes.
var DefaultSecretPatterns = []string{"*_API_KEY", "*_APIKEY", "*_TOKEN", "*_SECRET", "*_SECRET_KEY", "*_ACCESS_KEY", "*_PASSWORD"}

// defaultSecretNames are the built-in providers' keys, dropped even before
// a configuration was loaded.
var defaultSecretNames = []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY"}

var shellEnvPolicy atomic.Pointer[ShellEnvPolicy]

// SetShellEnvPolicy sets the policy for every command started afterwards
// (called once the configuration is loaded).
func SetShellEnvPolicy(p ShellEnvPolicy) { shellEnvPolicy.Store(&p) }

// filterEnv applies p to env ("NAME=value" entries): API keys, tokens and
// the configured names never reach a command (nor, through its output, a
// rollout).
func filterEnv(env []string, p ShellEnvPolicy) []string {
	matches := func(globs []string, name string) bool {
		up := strings.ToUpper(name)
		for _, g := range globs {
			if ok, _ := path.Match(strings.ToUpper(g), up); ok {
				return true
			}
		}
		return false
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(p.Secrets, name), slices.Contains(defaultSecretNames, name):
		case !p.IgnoreDefaultExcludes && matches(DefaultSecretPatterns, name):
		case matches(p.Exclude, name):
		case len(p.IncludeOnly) > 0 && !matches(p.IncludeOnly, name):
		default:
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(p.Set))
	for k := range p.Set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+p.Set[k])
	}
	return out
}

// shellCommand returns argv and environment for running cmd like
// `bash -lc cmd`, the environment filtered by the shell environment
// policy; extra entries (grove's own) are appended last and win.
func shellCommand(cmd string, extra ...string) ([]string, []string) {
	var p ShellEnvPolicy
	if cur := shellEnvPolicy.Load(); cur != nil {
		p = *cur
	}
	if env := loginEnvironment(); env != nil {
		return []string{"bash", "-c", cmd}, append(filterEnv(env, p), extra...)
	}
	return []string{"bash", "-lc", cmd}, append(filterEnv(os.Environ(), p), extra...)
}

// PolicyEnviron is grove's own environment filtered by the shell
// environment policy: what a program grove starts for the user (Codex's
// `notify`) may see. API keys never reach it.
func PolicyEnviron() []string {
	var p ShellEnvPolicy
	if cur := shellEnvPolicy.Load(); cur != nil {
		p = *cur
	}
	return filterEnv(os.Environ(), p)
}
