package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Subagent is the `[subagent]` table: seed 004 §5.3's SubagentConfig.
// The seed names no table; `subagent` is its feature and module name.
// Its keys are the seed's serde spelling (rename_all = "camelCase");
// the snake_case field names of its Rust struct are accepted too, since
// TOML configs are written that way (docs/seeds.md 004-61).
type Subagent struct {
	// Enabled is nil when the key is absent.
	Enabled *bool `toml:"enabled"`

	AgentsDirCamel    string `toml:"agentsDir"`
	AgentsDirSnake    string `toml:"agents_dir"`
	TimeoutCamel      *int   `toml:"defaultTimeoutSeconds"`
	TimeoutSnake      *int   `toml:"default_timeout_seconds"`
	MaxTurnsCamel     *int   `toml:"defaultMaxTurns"`
	MaxTurnsSnake     *int   `toml:"default_max_turns"`
	present           bool
	resolvedAgentsDir string
	timeout, maxTurns int
}

// Seed 004 §5.3's defaults.
const (
	DefaultSubagentTimeoutSeconds = 300
	DefaultSubagentMaxTurns       = 50
)

// SubagentsEnabled reports whether the Task tools are offered. Without a
// `[subagent]` table grove's own switch (agents.surface) decides, so
// configs written before the table existed keep their Task tools; with
// one, the seed's serde default applies: enabled is false unless set.
func (c *Config) SubagentsEnabled() bool {
	s := c.Subagent
	if s.Enabled != nil {
		return *s.Enabled
	}
	return !s.present
}

// SubagentAgentsDir is subagent.agentsDir made absolute ("" when unset).
func (c *Config) SubagentAgentsDir() string { return c.Subagent.resolvedAgentsDir }

// SubagentDefaults are the run limits of a definition that sets none.
func (c *Config) SubagentDefaults() (timeoutSeconds, maxTurns int) {
	return c.Subagent.timeout, c.Subagent.maxTurns
}

// validateSubagent checks the table and resolves its values; tree is the
// merged raw config (to tell an absent table from an empty one).
func (c *Config) validateSubagent(tree map[string]any) error {
	s := &c.Subagent
	_, s.present = tree["subagent"].(map[string]any)
	dir, err := oneSpelling("agentsDir", "agents_dir", s.AgentsDirCamel, s.AgentsDirSnake)
	if err != nil {
		return err
	}
	if s.timeout, err = positiveKey("defaultTimeoutSeconds", "default_timeout_seconds", s.TimeoutCamel, s.TimeoutSnake, DefaultSubagentTimeoutSeconds); err != nil {
		return err
	}
	if s.maxTurns, err = positiveKey("defaultMaxTurns", "default_max_turns", s.MaxTurnsCamel, s.MaxTurnsSnake, DefaultSubagentMaxTurns); err != nil {
		return err
	}
	if s.present && s.Enabled == nil {
		c.Warnings = append(c.Warnings, "config: [subagent] does not set enabled; seed 004's default is false, so the Task tools are off (set subagent.enabled = true to keep them)")
	}
	if dir == "" {
		return nil
	}
	if s.resolvedAgentsDir, err = c.resolveAgentsDir(dir); err != nil {
		return err
	}
	return nil
}

// resolveAgentsDir expands ~ and makes a relative path relative to the
// config file, then checks it is a directory: a misspelt path would
// otherwise hide every agent in it without a word.
func (c *Config) resolveAgentsDir(dir string) (string, error) {
	path := dir
	if path == "~" || strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("subagent.agentsDir %q: %w", dir, err)
		}
		path = filepath.Join(home, strings.TrimPrefix(path, "~"))
	}
	path = c.relativeToConfig(path)
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("subagent.agentsDir %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("subagent.agentsDir %q: %s is not a directory", dir, path)
	}
	return path, nil
}

// oneSpelling returns the value given under either spelling of a key; the
// two spellings with different values are an error, not a silent pick.
func oneSpelling(camel, snake, a, b string) (string, error) {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a != "" && b != "" && a != b {
		return "", fmt.Errorf("subagent.%s %q and subagent.%s %q: the same key twice with different values", camel, a, snake, b)
	}
	if a != "" {
		return a, nil
	}
	return b, nil
}

func positiveKey(camel, snake string, a, b *int, def int) (int, error) {
	if a != nil && b != nil && *a != *b {
		return 0, fmt.Errorf("subagent.%s = %d and subagent.%s = %d: the same key twice with different values", camel, *a, snake, *b)
	}
	v, name := a, camel
	if v == nil {
		v, name = b, snake
	}
	if v == nil {
		return def, nil
	}
	if *v < 1 {
		return 0, fmt.Errorf("subagent.%s = %d: must be at least 1", name, *v)
	}
	return *v, nil
}
