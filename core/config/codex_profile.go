package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CodexHome is $CODEX_HOME, else ~/.codex ("" when neither can be found):
// where grove looks for a Codex config when it has none of its own.
func CodexHome() string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(u, ".codex")
}

// applyProfile lays [profiles.<name>] over the top level of tree, as
// Codex does; name "" uses the tree's own `profile`. The profiles table
// itself is removed: its keys are Codex's and checked when selected.
func (c *Config) applyProfile(tree map[string]any, name, source string) error {
	raw, has := tree["profiles"]
	delete(tree, "profiles")
	profiles, ok := raw.(map[string]any)
	if has && !ok {
		return fmt.Errorf("%s: profiles must be a table of [profiles.<name>] tables", source)
	}
	if name == "" {
		name, _ = tree["profile"].(string)
	}
	if name == "" {
		return nil
	}
	tree["profile"] = name
	p, ok := profiles[name].(map[string]any)
	if !ok {
		names := make([]string, 0, len(profiles))
		for n := range profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		known := "none defined"
		if len(names) > 0 {
			known = "defined: " + strings.Join(names, ", ")
		}
		return fmt.Errorf("%s: profile %q: there is no [profiles.%s] table (%s)", source, name, name, known)
	}
	mergeTree(tree, p)
	return nil
}

// mergeTree copies over into base, merging tables key by key.
func mergeTree(base, over map[string]any) {
	for k, v := range over {
		if sub, ok := v.(map[string]any); ok {
			if dst, ok := base[k].(map[string]any); ok {
				mergeTree(dst, sub)
				continue
			}
		}
		base[k] = v
	}
}

// relativeToConfig resolves a path a config key names: relative to the
// config file's directory (grove's home when no file was read).
func (c *Config) relativeToConfig(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	base := c.Home
	if c.Source != "" {
		base = filepath.Dir(c.Source)
	}
	return filepath.Join(base, path)
}

// loadInstructionFiles reads model_instructions_file (relative to the
// config file) and, for a Codex config, Codex's global AGENTS.md.
func (c *Config) loadInstructionFiles(codexHome string) error {
	if f := strings.TrimSpace(c.ModelInstructionsFile); f != "" {
		path := c.relativeToConfig(f)
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("model_instructions_file %s: %w", path, err)
		}
		if strings.TrimSpace(string(data)) == "" {
			return fmt.Errorf("model_instructions_file %s: the file is empty", path)
		}
		c.ModelInstructions = string(data)
	}
	if !c.FromCodex || codexHome == "" {
		return nil
	}
	path := filepath.Join(codexHome, "AGENTS.md")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		c.Instructions = strings.TrimSpace(c.Instructions + "\n\n" + s)
	}
	return nil
}
