package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// `grove exec -o FILE` where the agent replaced FILE (in the workspace) by
// a symlink to a file outside every root: the target is left alone and
// Codex's "Failed to write last message file" warning goes to stderr
// (codex-rs/exec event_processor.rs write_last_message_to_path, O_NOFOLLOW);
// a FIFO there does not hang the exit. A plain file is still written.
func TestExecOutputFileDoesNotFollowSymlink(t *testing.T) {
	codexScriptServer(t)
	home, work := t.TempDir(), t.TempDir()
	victim := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(victim, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(work, "last.txt")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, home, "", "exec", "--skip-git-repo-check", "-o", link, "--cd", work, "-m", "m", "hello")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if b, _ := os.ReadFile(victim); string(b) != "original\n" {
		t.Fatalf("-o wrote through the symlink: %q", b)
	}
	if !strings.Contains(errOut, "Failed to write last message file \""+link+"\"") {
		t.Fatalf("no warning on stderr: %q", errOut)
	}
	if out == "" {
		t.Fatal("the final message was not printed")
	}

	fifo := filepath.Join(work, "fifo.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err = runCLI(t, home, "", "exec", "--skip-git-repo-check", "-o", fifo, "--cd", work, "-m", "m", "hello"); err != nil || !strings.Contains(errOut, "Failed to write last message file") {
		t.Fatalf("-o on a FIFO: %v %q", err, errOut)
	}

	plain := filepath.Join(work, "plain.txt")
	if err := os.WriteFile(plain, []byte(strings.Repeat("old ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err = runCLI(t, home, "", "exec", "--skip-git-repo-check", "-o", plain, "--cd", work, "-m", "m", "hello"); err != nil {
		t.Fatalf("-o plain: %v %s", err, errOut)
	}
	if b, _ := os.ReadFile(plain); strings.Contains(string(b), "old") || !strings.Contains(string(b), "hello") {
		t.Fatalf("-o plain file holds %q", b)
	}
}
