package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSubagentEnabledAloneOffersTask: seed 004's `[subagent] enabled =
// true`, with agents.surface unset, selects the Task surface; a set
// agents.surface still wins.
func TestSubagentEnabledAloneOffersTask(t *testing.T) {
	for _, c := range []struct{ toml, want string }{
		{"[subagent]\nenabled = true\n", "task"},
		{"[subagent]\nenabled = false\n", "collab"},
		{"[agents]\nsurface = \"collab\"\n[subagent]\nenabled = true\n", "collab"},
		{"", "collab"},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(c.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(home, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.toml, err)
		}
		if cfg.Agents.Surface != c.want || (c.want == "task" && !cfg.SubagentsEnabled()) {
			t.Errorf("%q: surface %q, want %q", c.toml, cfg.Agents.Surface, c.want)
		}
	}
}
