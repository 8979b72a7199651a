package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Seed 004 §5.3: SubagentConfig under [subagent], in the seed's camelCase
// and in the Rust field names' snake_case.
func TestSubagentTable(t *testing.T) {
	cfg, err := Load(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	timeout, turns := cfg.SubagentDefaults()
	if !cfg.SubagentsEnabled() || cfg.SubagentAgentsDir() != "" || timeout != 300 || turns != 50 {
		t.Fatalf("no table: enabled=%v dir=%q timeout=%d turns=%d", cfg.SubagentsEnabled(), cfg.SubagentAgentsDir(), timeout, turns)
	}

	home := writeConfig(t, "[subagent]\nenabled = true\nagentsDir = \"defs\"\ndefaultTimeoutSeconds = 90\ndefaultMaxTurns = 7\n")
	if err := os.Mkdir(filepath.Join(home, "defs"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	timeout, turns = cfg.SubagentDefaults()
	if !cfg.SubagentsEnabled() || cfg.SubagentAgentsDir() != filepath.Join(home, "defs") || timeout != 90 || turns != 7 {
		t.Fatalf("camelCase: enabled=%v dir=%q timeout=%d turns=%d", cfg.SubagentsEnabled(), cfg.SubagentAgentsDir(), timeout, turns)
	}

	cfg, err = Load(t.TempDir(), []string{"subagent.enabled=false", "subagent.default_max_turns=3", "subagent.agents_dir=" + filepath.Join(home, "defs")})
	if err != nil {
		t.Fatal(err)
	}
	if _, turns = cfg.SubagentDefaults(); cfg.SubagentsEnabled() || turns != 3 || cfg.SubagentAgentsDir() != filepath.Join(home, "defs") {
		t.Fatalf("snake_case overrides: enabled=%v turns=%d", cfg.SubagentsEnabled(), turns)
	}

	// ~ is the user's home directory.
	t.Setenv("HOME", home)
	cfg, err = Load(t.TempDir(), []string{"subagent.enabled=true", "subagent.agentsDir=~/defs"})
	if err != nil || cfg.SubagentAgentsDir() != filepath.Join(home, "defs") {
		t.Fatalf("~/defs: %v %q", err, cfg.SubagentAgentsDir())
	}
}

// A [subagent] table without enabled takes the seed's serde default
// (false), and says so.
func TestSubagentTableWithoutEnabledIsOff(t *testing.T) {
	cfg, err := Load(writeConfig(t, "[subagent]\ndefaultMaxTurns = 9\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SubagentsEnabled() {
		t.Fatal("enabled without the key: the seed's default is false")
	}
	found := false
	for _, w := range cfg.Warnings {
		found = found || strings.Contains(w, "subagent.enabled = true")
	}
	if !found {
		t.Fatalf("no warning about the default: %q", cfg.Warnings)
	}
}

func TestSubagentBadValuesNameTheKey(t *testing.T) {
	for body, want := range map[string]string{
		"[subagent]\nenabled = true\ndefaultTimeoutSeconds = 0":                      "subagent.defaultTimeoutSeconds = 0: must be at least 1",
		"[subagent]\nenabled = true\ndefault_max_turns = -2":                         "subagent.default_max_turns = -2: must be at least 1",
		"[subagent]\nenabled = true\ndefaultMaxTurns = 3\ndefault_max_turns = 4":     "subagent.defaultMaxTurns = 3 and subagent.default_max_turns = 4",
		"[subagent]\nenabled = true\nagentsDir = \"/nonexistent/grove-agents\"":      `subagent.agentsDir "/nonexistent/grove-agents"`,
		"[subagent]\nenabled = \"yes\"":                                              "enabled",
		"[subagent]\nenabled = true\nagentsDir = \"config.toml\"":                    "is not a directory",
		"agent_max_threads = 0":                                                      "agent_max_threads = 0: must be at least 1",
		"agent_max_threads = 2\n[agents]\nmax_threads = 3":                           "agent_max_threads = 2 and agents.max_threads = 3",
		"[subagent]\nenabled = true\nagentsDir = \"a\"\nagents_dir = \"b\"":          `subagent.agentsDir "a" and subagent.agents_dir "b"`,
		"[subagent]\nenabled = true\ndefaultTimeoutSeconds = 5\ndefaultMaxTurns = 0": "subagent.defaultMaxTurns = 0",
	} {
		_, err := Load(writeConfig(t, body), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", body, err, want)
		}
	}
}

// Seed 000 names the limit agent_max_threads: a top-level key of that
// name sets it, no longer warned about as unknown.
func TestAgentMaxThreadsTopLevel(t *testing.T) {
	cfg, err := Load(writeConfig(t, "agent_max_threads = 1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents.MaxThreads != 1 {
		t.Fatalf("max threads %d", cfg.Agents.MaxThreads)
	}
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "agent_max_threads") {
			t.Fatalf("warned: %q", w)
		}
	}
	cfg, err = Load(writeConfig(t, "agent_max_threads = 4\n[agents]\nmax_threads = 4\n"), nil)
	if err != nil || cfg.Agents.MaxThreads != 4 {
		t.Fatalf("both spellings agreeing: %v %+v", err, cfg)
	}
}

// Seed 000: sub-agent-complete is filtered by [tui] notifications, a
// Codex-style list of names or a bool; neither form is an error.
func TestNotificationsBoolOrList(t *testing.T) {
	for body, want := range map[string]bool{
		"[tui]\nnotifications = true":                      true,
		"[tui]\nnotifications = false":                     false,
		"[tui]\nnotifications = [\"sub-agent-complete\"]":  true,
		"[tui]\nnotifications = [\"agent-turn-complete\"]": false,
		"[tui]\nnotifications = []":                        false,
		"notify = [\"true\"]\n[tui]\nnotifications = true": true,
	} {
		cfg, err := Load(writeConfig(t, body), nil)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		kinds, err := cfg.NotificationKinds()
		if err != nil || kinds["sub-agent-complete"] != want {
			t.Errorf("%q: sub-agent-complete=%v err=%v, want %v", body, kinds["sub-agent-complete"], err, want)
		}
	}
}
