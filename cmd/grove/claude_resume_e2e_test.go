package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// runScriptedClaude runs one `grove exec` of a Claude model through the
// script s, with extra arguments before the prompt, and waits for it.
func runScriptedClaude(t *testing.T, s *scriptedClaude, home, work string, args ...string) {
	t.Helper()
	srv := modeltest.NewServer(t)
	srv.Handle(s.handle)
	argv := append([]string{"exec", "--json=grove", "--cd", work, "-m", "claude-sonnet-4-5"}, args...)
	p := startGrove(t, providerEnv(home, srv.URL()), argv...)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("grove did not exit within 60 s; stderr:\n%s", p.stderr.String())
	}
	if code, _ := p.waitExit(t, time.Now()); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s", code, p.stderr.String(), p.stdout.String())
	}
}

// TestClaudeEditAfterResumeKeepsEarlierReads: a Claude session Reads two
// files and ends; one of them changes on disk; `grove exec resume --last`
// then Edits all three files. The file read before the resume is edited
// (Claude Code rebuilds its read state from the resumed transcript), the
// one changed since is refused as modified, the one never read as not
// read, and the files on disk say the same.
func TestClaudeEditAfterResumeKeepsEarlierReads(t *testing.T) {
	needBinary(t)
	work, home := t.TempDir(), t.TempDir()
	p := func(n string) string { return filepath.Join(work, n) }
	for _, n := range []string{"kept.txt", "changed.txt", "unread.txt"} {
		if err := os.WriteFile(p(n), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := &scriptedClaude{steps: []claudeStep{
		claudeCall("Read", map[string]any{"file_path": p("kept.txt")}),
		claudeCall("Read", map[string]any{"file_path": p("changed.txt")}),
	}}
	runScriptedClaude(t, first, home, work, "read two files")
	if len(first.answers) != 2 || first.answers[0] != "     1→old" {
		t.Fatalf("the first run's answers: %q", first.answers)
	}
	// Changed after the first run read it, as a user or a linter would.
	later := time.Now().Add(2 * time.Second)
	if err := os.WriteFile(p("changed.txt"), []byte("old\nuser\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p("changed.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	edit := func(n string) claudeStep {
		return claudeCall("Edit", map[string]any{"file_path": p(n), "old_string": "old", "new_string": "new"})
	}
	second := &scriptedClaude{steps: []claudeStep{edit("kept.txt"), edit("changed.txt"), edit("unread.txt")}}
	runScriptedClaude(t, second, home, work, "resume", "--last", "now edit them")
	if len(second.answers) != 3 {
		t.Fatalf("the resumed run's answers: %q", second.answers)
	}
	for i, want := range []string{
		"The file " + p("kept.txt") + " has been updated.",
		"File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
		"File has not been read yet. Read it first before writing to it.",
	} {
		if !strings.HasPrefix(second.answers[i], want) {
			t.Errorf("answer %d = %q, want it to begin %q", i, second.answers[i], want)
		}
	}
	for n, want := range map[string]string{"kept.txt": "new\n", "changed.txt": "old\nuser\n", "unread.txt": "old\n"} {
		if b, _ := os.ReadFile(p(n)); string(b) != want {
			t.Errorf("%s = %q, want %q", n, b, want)
		}
	}
}
