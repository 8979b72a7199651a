package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	proj "github.com/grovecli/grove/core/project"
)

// Locations are the places hooks are looked for.
type Locations struct {
	Cwd       string
	GroveHome string
	// CodexHome is $CODEX_HOME or ~/.codex (empty: not read).
	CodexHome string
	// UserHome holds ~/.claude/settings.json (empty: not read).
	UserHome string
	// SystemDir is /etc/codex: managed hooks (empty: not read).
	SystemDir string
}

// Set is what discovery found: every declared hook with its trust, and
// the problems met on the way (each names its file).
type Set struct {
	Hooks       []Hook
	Warnings    []string
	ProjectRoot string
}

// ProjectRoot is the nearest directory from cwd up holding .git, or cwd.
func ProjectRoot(cwd string) string {
	if root, ok := proj.Root(cwd); ok {
		return root
	}
	return cwd
}

type source struct {
	path   string
	scope  Scope
	parser func(string, Scope) ([]Hook, []string, error)
}

// sources lists the files to read, lowest precedence first as Codex
// layers them: managed, user (grove, Codex, Claude Code), then the
// project's directories from its root down to cwd.
func (l Locations) sources(root string) []source {
	var out []source
	add := func(path string, scope Scope, p func(string, Scope) ([]Hook, []string, error)) {
		out = append(out, source{path, scope, p})
	}
	if l.SystemDir != "" {
		add(filepath.Join(l.SystemDir, "hooks.json"), ScopeManaged, parseHooksJSON)
		add(filepath.Join(l.SystemDir, "config.toml"), ScopeManaged, parseConfigTOML)
	}
	if l.GroveHome != "" {
		add(filepath.Join(l.GroveHome, "hooks.json"), ScopeUser, parseHooksJSON)
		add(filepath.Join(l.GroveHome, "config.toml"), ScopeUser, parseConfigTOML)
	}
	if l.CodexHome != "" && filepath.Clean(l.CodexHome) != filepath.Clean(l.GroveHome) {
		add(filepath.Join(l.CodexHome, "hooks.json"), ScopeUser, parseHooksJSON)
		add(filepath.Join(l.CodexHome, "config.toml"), ScopeUser, parseConfigTOML)
	}
	if l.UserHome != "" {
		add(filepath.Join(l.UserHome, ".claude", "settings.json"), ScopeUser, parseClaudeSettings)
	}
	for _, d := range dirsDown(root, l.Cwd) {
		if d == l.UserHome {
			continue // ~/.claude is the user's, read above
		}
		add(filepath.Join(d, ".grove", "hooks.json"), ScopeProject, parseHooksJSON)
		add(filepath.Join(d, ".codex", "hooks.json"), ScopeProject, parseHooksJSON)
		add(filepath.Join(d, ".codex", "config.toml"), ScopeProject, parseConfigTOML)
		add(filepath.Join(d, ".claude", "settings.json"), ScopeProject, parseClaudeSettings)
		add(filepath.Join(d, ".claude", "settings.local.json"), ScopeProject, parseClaudeSettings)
	}
	return out
}

// dirsDown lists root, then each directory below it down to cwd.
func dirsDown(root, cwd string) []string {
	var up []string
	for d := cwd; ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	out := make([]string, 0, len(up))
	for i := len(up) - 1; i >= 0; i-- {
		out = append(out, up[i])
	}
	return out
}

// Discover reads every hooks file of l and decides each hook's trust from
// st. A file that cannot be read or parsed is a warning naming it; the
// other files still load.
func Discover(l Locations, st State) Set {
	root := ProjectRoot(l.Cwd)
	set := Set{ProjectRoot: root}
	projectTrusted := st.ProjectTrusted(root) || st.ProjectTrusted(l.Cwd)
	seen := map[string]bool{}
	for _, s := range l.sources(root) {
		if seen[s.path] {
			continue
		}
		seen[s.path] = true
		if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		hs, warns, err := s.parser(s.path, s.scope)
		set.Warnings = append(set.Warnings, warns...)
		if err != nil {
			set.Warnings = append(set.Warnings, fmt.Sprintf("%v (no hooks loaded from it)", err))
			continue
		}
		for _, h := range hs {
			h.Files = namedFiles(h.Command, l.Cwd, root)
			h.FilesHash = filesHash(h.Files)
			h.Trust = st.trustOf(h, projectTrusted)
			h.Unsandboxed = st.unsandboxed(h.Key)
			set.Hooks = append(set.Hooks, h)
		}
	}
	return set
}

// Active returns the hooks that run: managed and trusted ones, and with
// bypass (--dangerously-bypass-hook-trust) unreviewed and changed ones.
func (s Set) Active(bypass bool) []Hook {
	var out []Hook
	for _, h := range s.Hooks {
		if h.Trust.Runs(bypass) {
			out = append(out, h)
		}
	}
	return out
}

// Skipped returns the hooks that do not run, each with why.
func (s Set) Skipped(bypass bool) []Hook {
	var out []Hook
	for _, h := range s.Hooks {
		if !h.Trust.Runs(bypass) {
			out = append(out, h)
		}
	}
	return out
}

// NeedsReview returns the hooks a review would enable: unreviewed or
// changed, in a trusted project or the user's own.
func (s Set) NeedsReview() []Hook {
	var out []Hook
	for _, h := range s.Hooks {
		if h.Trust == TrustUntrusted || h.Trust == TrustModified {
			out = append(out, h)
		}
	}
	return out
}
