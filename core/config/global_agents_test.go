package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 34: $CODEX_HOME/AGENTS.md is the user's global instructions file
// even when no $CODEX_HOME/config.toml exists; AGENTS.override.md wins over
// it; invalid UTF-8 is replaced with Codex's warning ("Global AGENTS.md
// instructions from `…` contain invalid UTF-8: … Invalid byte sequences were
// replaced.", codex-rs/core's global loader and agents_md.rs warn_invalid_utf8).
func TestGlobalAgentsMD(t *testing.T) {
	codex := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(codex, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "  shared rules \n")
	cfg, err := LoadWith(LoadOptions{Home: t.TempDir(), CodexHome: codex})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.UserAgentsMD != "shared rules" || cfg.UserAgentsMDPath != filepath.Join(codex, "AGENTS.md") {
		t.Fatalf("without config.toml: %q from %q", cfg.UserAgentsMD, cfg.UserAgentsMDPath)
	}
	write("AGENTS.override.md", "local\xFFrules")
	cfg, err = LoadWith(LoadOptions{Home: t.TempDir(), CodexHome: codex})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.UserAgentsMD != "local\uFFFDrules" || cfg.UserAgentsMDPath != filepath.Join(codex, "AGENTS.override.md") {
		t.Fatalf("override: %q from %q", cfg.UserAgentsMD, cfg.UserAgentsMDPath)
	}
	var warned bool
	for _, w := range cfg.Warnings {
		if strings.HasPrefix(w, "Global AGENTS.md instructions from `"+filepath.Join(codex, "AGENTS.override.md")+"` contain invalid UTF-8: invalid utf-8 sequence of 1 bytes from index 5. Invalid byte sequences were replaced.") {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no invalid UTF-8 warning: %q", cfg.Warnings)
	}
	// grove's own config: the user set grove up; Codex's file is not read.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = \"m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadWith(LoadOptions{Home: home, CodexHome: codex})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.UserAgentsMD != "" {
		t.Fatalf("grove's config read Codex's AGENTS.md: %q", cfg.UserAgentsMD)
	}
}
