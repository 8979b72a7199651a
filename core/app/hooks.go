package app

import (
	"os"
	"path/filepath"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// CodexHome is $CODEX_HOME or ~/.codex.
func CodexHome() string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	if h := UserHome(); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// SystemConfigDir is where managed hooks and skills live (Codex's
// /etc/codex); GROVE_SYSTEM_CONFIG_DIR moves it (tests, packagers).
func SystemConfigDir() string {
	if d := os.Getenv("GROVE_SYSTEM_CONFIG_DIR"); d != "" {
		return d
	}
	return "/etc/codex"
}

// UserHome is the user's home directory ("" when unknown).
func UserHome() string {
	h, _ := os.UserHomeDir()
	return h
}

// DiscoverHooks finds every hook for a session in cwd and its trust:
// reviews and trusted projects come from grove's config.toml, then
// Codex's (so what was reviewed in Codex counts here).
func DiscoverHooks(cfg *config.Config, cwd string) (hooks.Set, error) {
	ch := CodexHome()
	st, err := hooks.LoadState(filepath.Join(cfg.Home, "config.toml"), filepath.Join(ch, "config.toml"))
	if err != nil {
		return hooks.Set{}, err
	}
	return hooks.Discover(hooks.Locations{
		Cwd: cwd, GroveHome: cfg.Home, CodexHome: ch, UserHome: UserHome(), SystemDir: SystemConfigDir(),
	}, st), nil
}

// newHookRunner runs set's active hooks with the scrubbed environment,
// in the session's sandbox (policy) unless a hook's [hooks.state] table
// says `grove_sandbox = "none"`.
func newHookRunner(set hooks.Set, bypass bool, policy protocol.SandboxPolicy) *hooks.Runner {
	active := set.Active(bypass)
	if len(active) == 0 {
		return nil
	}
	return hooks.NewRunner(active, hooks.Options{Env: tools.HookEnv, ProjectDir: set.ProjectRoot, Sandbox: policy})
}
