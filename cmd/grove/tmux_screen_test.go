package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxAlternateScreenNever: with tui.alternate_screen = "never" grove
// runs in the terminal's main screen (Codex's inline mode), so what was in
// the terminal before stays in its scrollback; tmux reports which screen
// the pane is on. (The default's alternate screen is checked in
// TestTmuxRewindForksWithTheMessage.)
func TestTmuxAlternateScreenNever(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[tui]\nalternate_screen = \"never\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u ZELLIJ GROVE_HOME=" + home + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 100, 30, env)
	p.wait("the demo", func(s string) bool {
		return strings.Contains(strings.ToLower(s), "demo") && strings.Contains(s, "to root")
	})
	if on := strings.TrimSpace(p.run("display-message", "-p", "-t", p.name, "#{alternate_on}")); on != "0" {
		t.Fatalf("alternate_on %q with alternate_screen = never", on)
	}
	p.key("C-c")
	p.key("C-c")
}
