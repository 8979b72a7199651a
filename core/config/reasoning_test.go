package config

import (
	"strings"
	"testing"
)

// A reasoning effort or summary the API does not know is refused when
// the config is read, naming the key and the file (Codex refuses an
// unknown variant of ReasoningEffort / ReasoningSummary the same way).
func TestReasoningKeysAreChecked(t *testing.T) {
	home := writeConfig(t, "model_reasoning_effort = \"xhigh\"\nmodel_reasoning_summary = \"detailed\"\n")
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ReasoningEffort != "xhigh" || cfg.ReasoningSummary != "detailed" {
		t.Fatalf("effort %q summary %q", cfg.ReasoningEffort, cfg.ReasoningSummary)
	}
	for _, c := range []struct{ override, want string }{
		{`model_reasoning_effort="max"`, `model_reasoning_effort "max": expected none, minimal, low, medium, high or xhigh`},
		{`model_reasoning_summary="long"`, `model_reasoning_summary "long": expected auto, concise, detailed or none`},
	} {
		_, err := Load(home, []string{c.override})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), home) {
			t.Errorf("-c %s: %v, want %q naming %s", c.override, err, c.want, home)
		}
	}
}
