package main

import (
	"strings"
	"testing"
)

// TestTmuxIdleRendererWakes: Bubble Tea's renderer (the pinned fork in
// tui/third_party/bubbletea) sleeps once nothing changes. In the real binary
// the finished demo sits idle; then a typed draft, a resize and a slash
// menu must each still reach the screen, drawn whole at the new size.
func TestTmuxIdleRendererWakes(t *testing.T) {
	home, tmp := t.TempDir(), t.TempDir()
	env := "env -u OPENAI_API_KEY -u OPENAI_BASE_URL GROVE_HOME=" + home + " TMPDIR=" + tmp
	p := startTmux(t, 100, 30, env)
	p.wait("the approval modal, listening", func(s string) bool {
		return strings.Contains(s, "another directory") && strings.Contains(s, "tab to answer")
	})
	p.typeText("y")
	p.wait("the finished demo", demoFinished)

	p.typeText("a draft typed while idle")
	p.wait("the draft", func(s string) bool { return strings.Contains(s, "› a draft typed while idle") })

	p.run("resize-window", "-t", p.name, "-x", "80", "-y", "24")
	s := p.wait("the 80x24 redraw", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) == 24 && strings.Contains(lines[len(lines)-1], "? help")
	})
	for i, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Errorf("line %d is %d runes wide after the resize:\n%s", i+1, w, s)
		}
	}
	if !strings.Contains(s, "a draft typed while idle") {
		t.Errorf("the draft was lost in the resize:\n%s", s)
	}

	p.key("C-u")
	p.typeText("/")
	p.wait("the slash menu", func(s string) bool { return strings.Contains(s, "/resume") })
	p.key("BSpace") // (Escape then a key can reach grove as one Alt chord)
	p.wait("the empty composer", func(s string) bool { return strings.Contains(s, "› Ask grove anything") })
	p.run("set-option", "-t", p.name, "remain-on-exit", "on")
	p.key("C-c")
	p.key("C-c")
	p.wait("grove to quit", func(s string) bool { return strings.Contains(s, "grove resume ") })
}
