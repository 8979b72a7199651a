package config

import "testing"

// TestTUIAlternateScreen: tui.alternate_screen takes Codex's three values
// (codex-rs/core/src/config/types.rs, Tui.alternate_screen: auto disables
// the alternate screen in Zellij, always uses it, never runs inline);
// unset is auto.
func TestTUIAlternateScreen(t *testing.T) {
	inZellij := func(k string) string {
		if k == "ZELLIJ" {
			return "0"
		}
		return ""
	}
	plain := func(string) string { return "" }
	for _, c := range []struct {
		body            string
		plain, inZellij bool
	}{
		{"", false, true},
		{"[tui]\nalternate_screen = \"auto\"", false, true},
		{"[tui]\nalternate_screen = \"always\"", false, false},
		{"[tui]\nalternate_screen = \"never\"", true, true},
	} {
		cfg, err := Load(writeConfig(t, c.body), nil)
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		if got := cfg.TUI.Inline(plain); got != c.plain {
			t.Errorf("%q: inline %v in a plain terminal, want %v", c.body, got, c.plain)
		}
		if got := cfg.TUI.Inline(inZellij); got != c.inZellij {
			t.Errorf("%q: inline %v in Zellij, want %v", c.body, got, c.inZellij)
		}
	}
	cfg, err := Load(writeConfig(t, ""), []string{"tui.alternate_screen=never"})
	if err != nil || !cfg.TUI.Inline(plain) {
		t.Fatalf("-c tui.alternate_screen=never: %v", err)
	}
}
