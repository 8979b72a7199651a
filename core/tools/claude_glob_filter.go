package tools

import (
	"os"
	"strings"
)

// globFilter is what Glob leaves out of its matches. Claude Code's tools
// reference ("Glob tool behavior"): "Glob does not respect .gitignore by
// default, so it finds gitignored files alongside tracked ones. This
// differs from Grep, which skips gitignored files. To make Glob respect
// .gitignore, set CLAUDE_CODE_GLOB_NO_IGNORE=false before launching
// Claude Code." Its environment-variable reference adds
// CLAUDE_CODE_GLOB_HIDDEN (default true: "The Glob tool includes dotfiles
// in its results"). Claude Code runs `rg --files --glob P --no-ignore
// --hidden`, dropping each flag when its variable is not truthy; grove
// reads the same two variables from its own environment, at each call as
// Claude Code does.
type globFilter struct {
	// respectIgnore skips what ripgrep's ignore files exclude: .gitignore
	// (inside a git repository, with its parents' files), .ignore,
	// .rgignore and .git/info/exclude, as Grep does (ignoreFilter).
	respectIgnore bool
	// skipHidden skips hidden files and the files in hidden directories.
	skipHidden bool
}

// globFilterFromEnv reads CLAUDE_CODE_GLOB_NO_IGNORE and
// CLAUDE_CODE_GLOB_HIDDEN as Claude Code does: unset or empty counts as
// "true", the default.
func globFilterFromEnv() globFilter {
	return globFilter{
		respectIgnore: !envTruthy(os.Getenv("CLAUDE_CODE_GLOB_NO_IGNORE"), true),
		skipHidden:    !envTruthy(os.Getenv("CLAUDE_CODE_GLOB_HIDDEN"), true),
	}
}

// envTruthy is Claude Code's reading of a boolean variable: 1, true, yes
// or on (any case, spaces trimmed) is true, any other value false, and an
// empty one takes def.
func envTruthy(v string, def bool) bool {
	if v == "" {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
