package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// HookState is one `[hooks.state."<key>"]` table (Codex's HookStateToml).
type HookState struct {
	Enabled     *bool  `toml:"enabled"`
	TrustedHash string `toml:"trusted_hash"`
	// FilesHash is grove's fingerprint of the project files the command
	// names, recorded with the review (files.go); Codex does not write it.
	FilesHash string `toml:"grove_files_hash"`
	// Sandbox is grove's per-hook choice of where the hook runs:
	// "" or "session" (the session's sandbox, like the agent's commands)
	// or "none" (outside it, as the user). Codex does not write it.
	Sandbox string `toml:"grove_sandbox"`
}

// State is what the configuration says about trust: reviewed hooks and
// trusted projects.
type State struct {
	Hooks map[string]HookState
	// Projects maps a project root to its trust_level.
	Projects map[string]string
}

type stateFile struct {
	Hooks struct {
		State map[string]HookState `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

// LoadState reads `[hooks.state]` and `[projects]` from the config files
// given, first one winning a key (grove's own config, then Codex's, so a
// review recorded by Codex counts too). A missing file is fine; a broken
// one is an error naming it.
func LoadState(files ...string) (State, error) {
	st := State{Hooks: map[string]HookState{}, Projects: map[string]string{}}
	for _, f := range files {
		if f == "" {
			continue
		}
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return st, fmt.Errorf("read config %s: %w", f, err)
		}
		var sf stateFile
		if _, err := toml.Decode(string(data), &sf); err != nil {
			return st, fmt.Errorf("config %s: hooks.state/projects: %w", f, err)
		}
		for k, v := range sf.Hooks.State {
			if _, ok := st.Hooks[k]; !ok {
				st.Hooks[k] = v
			}
		}
		for k, v := range sf.Projects {
			k = filepath.Clean(k)
			if _, ok := st.Projects[k]; !ok {
				st.Projects[k] = strings.ToLower(v.TrustLevel)
			}
		}
	}
	return st, nil
}

// ProjectTrusted reports whether root is `trust_level = "trusted"`.
func (s State) ProjectTrusted(root string) bool {
	return s.Projects[filepath.Clean(root)] == "trusted"
}

// unsandboxed reports whether the user let hook key run outside the
// sandbox (`grove_sandbox = "none"`); any other value keeps it inside.
func (s State) unsandboxed(key string) bool {
	return strings.EqualFold(s.Hooks[key].Sandbox, "none")
}

// trustOf decides one hook's status.
func (s State) trustOf(h Hook, projectTrusted bool) Trust {
	if h.Scope == ScopeManaged {
		return TrustManaged
	}
	st, ok := s.Hooks[h.Key]
	if ok && st.Enabled != nil && !*st.Enabled {
		return TrustDisabled
	}
	if h.Scope == ScopeProject && !projectTrusted {
		return TrustProjectUntrusted
	}
	switch {
	case !ok || st.TrustedHash == "":
		return TrustUntrusted
	case st.TrustedHash == h.Hash && st.FilesHash == h.FilesHash:
		return TrustTrusted
	}
	// The declaration or a file it runs changed since the review (or
	// Codex reviewed it, which does not cover the files).
	return TrustModified
}
