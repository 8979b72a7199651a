package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTmuxSmoke drives the real binary in tmux as a person would: start
// grove with no API key (the demo), approve the working-directory request,
// and read the screen once the demo tree has finished.
func TestTmuxSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("tmux smoke test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed: skipping the TUI smoke test (apt-get install tmux)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "grove")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	session := "grove-smoke-" + filepath.Base(dir)
	// A private tmux server: the test never touches the user's sessions.
	sock := "grove-smoke-" + filepath.Base(dir)
	tmux := func(args ...string) string {
		c := exec.Command("tmux", append([]string{"-L", sock}, args...)...)
		c.Env = append(os.Environ(), "TERM=xterm-256color") // CI may have no TERM
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	env := "env -u OPENAI_API_KEY -u OPENAI_BASE_URL GROVE_HOME=" + home + " TMPDIR=" + dir + " TERM=xterm-256color "
	tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", env+bin)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })

	screen := func() string { return tmux("capture-pane", "-p", "-t", session) }
	waitScreen := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %s; last screen:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	s := waitScreen("the demo label", func(s string) bool { return strings.Contains(strings.ToLower(s), "demo") })
	if !strings.Contains(s, "grove") {
		t.Fatalf("header missing:\n%s", s)
	}
	// The working-directory approval appears; answer after the grace period.
	waitScreen("the approval modal", func(s string) bool { return strings.Contains(s, "another directory") && strings.Contains(s, "→") })
	time.Sleep(700 * time.Millisecond)
	tmux("send-keys", "-t", session, "y")
	s = waitScreen("the finished demo", func(s string) bool { return strings.Contains(s, "Demo complete") })
	for _, want := range []string{"explorer", "worker"} {
		if !strings.Contains(s, want) {
			t.Errorf("final screen lacks %q:\n%s", want, s)
		}
	}
	// Ctrl+C twice on an idle screen quits and restores the terminal.
	tmux("send-keys", "-t", session, "C-c")
	tmux("send-keys", "-t", session, "C-c")
	// The session ends when grove exits (it is the pane's only process).
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", sock, "has-session", "-t", session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("grove did not quit on ctrl+c twice:\n%s", screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(home, "session_index.jsonl")); err != nil {
		t.Fatalf("no session recorded: %v", err)
	}
}
