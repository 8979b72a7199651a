package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// Issue 21, fourth pass: the agents' user-level configuration ($GROVE_HOME,
// $CODEX_HOME, ~/.claude, ~/.agents) holds what runs outside the sandbox
// at the next start — notify programs, MCP servers, hooks and their
// trusted hashes, project trust levels. It is inside a writable root when
// HOME (or GROVE_HOME, CODEX_HOME) is under the temp directory, as in many
// containers and CI jobs (HOME=/tmp), which no protected-name scan covers,
// or when it is set to a directory of the project. Those directories are
// protected like .git wherever a writable root holds them.

// configHomes lists the user-level configuration directories, resolved
// (symlinks followed as far as they exist), as grove's configuration
// finds them (config.Home, config.CodexHome, the hook and skill
// discovery). Computed in grove, never in the helper, whose environment
// may have lost GROVE_HOME (inherit = "core").
func configHomes() []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if real, err := resolve(absolute("", p)); err == nil {
			p = real
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	home, _ := os.UserHomeDir()
	if h := os.Getenv("GROVE_HOME"); h != "" {
		add(h)
	} else if home != "" {
		add(filepath.Join(home, ".grove"))
	}
	if h := os.Getenv("CODEX_HOME"); h != "" {
		add(h)
	} else if home != "" {
		add(filepath.Join(home, ".codex"))
	}
	if home != "" {
		add(filepath.Join(home, ".claude"))
		add(filepath.Join(home, ".agents"))
	}
	return out
}

// homesWithin keeps the configuration directories inside one of roots:
// the only ones a command could write.
func homesWithin(roots []string) []string {
	var out []string
	for _, h := range configHomes() {
		if underAny(h, roots) {
			out = append(out, h)
		}
	}
	return out
}

// underAny reports whether p is one of roots or below one.
func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}
