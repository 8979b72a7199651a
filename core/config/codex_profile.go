package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/grovecli/grove/core/tools/safefile"
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
	key, f := "model_instructions_file", strings.TrimSpace(c.ModelInstructionsFile)
	if f == "" {
		key, f = "experimental_instructions_file", strings.TrimSpace(c.ExperimentalInstructionsFile)
	}
	if f != "" {
		path := c.relativeToConfig(f)
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", key, path, err)
		}
		if strings.TrimSpace(string(data)) == "" {
			return fmt.Errorf("%s %s: the file is empty", key, path)
		}
		c.ModelInstructions = string(data)
	}
	if codexHome == "" || (c.Source != "" && !c.FromCodex) {
		return nil // grove's own config: its instructions are its own
	}
	c.loadGlobalAgentsMD(codexHome)
	return nil
}

// loadGlobalAgentsMD reads Codex's global instructions file:
// AGENTS.override.md before AGENTS.md in codexHome, the first with
// non-blank content (codex-rs/core's global instructions loader). Invalid
// UTF-8 is replaced and warned about in Codex's words; a file that cannot
// be read is a warning, not a failed start.
func (c *Config) loadGlobalAgentsMD(codexHome string) {
	for _, name := range []string{"AGENTS.override.md", "AGENTS.md"} {
		path := filepath.Join(codexHome, name)
		data, err := safefile.ReadForModel(path, safefile.ReadPolicy{})
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			if st, serr := os.Stat(path); serr == nil && st.IsDir() {
				continue
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("Failed to read global AGENTS.md instructions from `%s`: %v", path, err))
			continue
		}
		if w := InvalidUTF8Warning("Global", path, data); w != "" {
			c.Warnings = append(c.Warnings, w)
		}
		if text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD")); text != "" {
			c.UserAgentsMD, c.UserAgentsMDPath = text, path
			return
		}
	}
}

// InvalidUTF8Warning is Codex's startup warning for an AGENTS.md that is
// not valid UTF-8 ("" when it is): source is "Global" or "Project".
func InvalidUTF8Warning(source, path string, data []byte) string {
	if utf8.Valid(data) {
		return ""
	}
	return fmt.Sprintf("%s AGENTS.md instructions from `%s` contain invalid UTF-8: %s. Invalid byte sequences were replaced.", source, path, utf8ErrorText(data))
}

// utf8ErrorText describes the first bad sequence as Rust's Utf8Error does.
func utf8ErrorText(data []byte) string {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError || n != 1 {
			i += n
			continue
		}
		if !utf8.FullRune(data[i:]) {
			return fmt.Sprintf("incomplete utf-8 byte sequence from index %d", i)
		}
		return fmt.Sprintf("invalid utf-8 sequence of 1 bytes from index %d", i)
	}
	return "invalid utf-8"
}
