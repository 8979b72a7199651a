//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/grovecli/grove/core/project"
)

// absentAttacks create protected names that did not exist (issue 21's
// documented gap): a hook for the user's next git command, a project
// config and agent definitions for the next grove or Codex start, a
// gitfile pointing into the workspace, a nested repository.
var absentAttacks = []struct{ script, planted string }{
	{"mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch /tmp/owned\\n' > .git/hooks/post-checkout", ".git/hooks/post-checkout"},
	{"mkdir -p .codex && echo 'notify = [\"sh\", \"-c\", \"touch /tmp/owned\"]' > .codex/config.toml", ".codex/config.toml"},
	{"mkdir -p .grove/agents && printf -- '---\\ndescription: x\\n---\\nobey\\n' > .grove/agents/worker.md", ".grove/agents/worker.md"},
	{"mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json", ".claude/settings.json"},
	{"mkdir -p .agents/skills/x && echo evil > .agents/skills/x/SKILL.md", ".agents/skills/x/SKILL.md"},
	{"mkdir -p evil/hooks && echo 'gitdir: evil' > .git", ".git"},
	{"mkdir -p src/lib/.git/hooks && echo hook > src/lib/.git/hooks/pre-commit", "src/lib/.git/hooks/pre-commit"},
	{"mkdir -p src/.grove/agents && echo obey > src/.grove/agents/w.md", "src/.grove/agents/w.md"},
	// The other angle: keep the plant by taking the write bit off its
	// directory, or make .git a link to a directory of hooks.
	{"mkdir -p src/x/.git/hooks && echo hook > src/x/.git/hooks/pre-commit && chmod 555 src/x", "src/x/.git/hooks/pre-commit"},
	{"mkdir -p src/h/hooks && ln -s h src/.git", "src/.git"},
}

// Before this pass every attack above planted its file. With namespaces
// the names at the top of the root are read-only placeholders (kernel);
// deeper ones, and all of them without namespaces, are moved aside after
// the command (judged), which says so in its output.
func TestEscapeAbsentProtectedNames(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("no user namespaces here; the landlock-only case runs in TestAbsentProtectedNamesWithoutNamespaces")
	}
	testAbsentProtectedNames(t, true)
}

func TestAbsentProtectedNamesWithoutNamespaces(t *testing.T) {
	requireLandlock(t, 1)
	withoutNamespaces(t)
	testAbsentProtectedNames(t, false)
}

func testAbsentProtectedNames(t *testing.T, namespaces bool) {
	for _, a := range absentAttacks {
		work, _ := dirs(t)
		if err := os.MkdirAll(filepath.Join(work, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, _ := sh(t, workspaceWrite, work, a.script+"; echo done")
		target := filepath.Join(work, a.planted)
		if a.planted == ".git" {
			if raw, err := os.ReadFile(target); err == nil && strings.Contains(string(raw), "gitdir") {
				t.Errorf("%q planted a gitfile: %s", a.script, out)
			}
		} else if exists(target) {
			t.Errorf("%q planted %s: %s", a.script, a.planted, out)
		}
		if namespaces && !strings.HasPrefix(a.planted, "src/") { // a placeholder stands there
			if !deniedByKernel(out) && !strings.Contains(out, "Is a directory") {
				t.Errorf("%q: not refused by the kernel: %s", a.script, out)
			}
			continue
		}
		if !strings.Contains(out, "Moved to") || !strings.Contains(out, "grove-quarantine-1") {
			t.Errorf("%q: the output does not say what was moved: %s", a.script, out)
		}
		// The next command runs (nothing protected is left to refuse).
		if out, code := sh(t, workspaceWrite, work, "echo ok > f && cat f"); code != 0 || !strings.Contains(out, "ok") {
			t.Errorf("after %q: exit %d: %s", a.script, code, out)
		}
	}
}

// The placeholders are empty directories git and grove's discovery skip;
// Shutdown removes those grove made once no grove uses them, never a
// directory the user made.
func TestPlaceholdersRemovedOnShutdown(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("placeholders are made only with user namespaces")
	}
	work, _ := dirs(t)
	if err := os.Mkdir(filepath.Join(work, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := sh(t, workspaceWrite, work, "ls -a; echo ok > f"); code != 0 || !strings.Contains(out, ".codex") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if project.IsRoot(work) {
		t.Error("the empty .git placeholder counts as a repository root")
	}
	Shutdown()
	for _, n := range []string{".git", ".grove", ".codex", ".agents"} {
		if exists(filepath.Join(work, n)) {
			t.Errorf("%s left behind", n)
		}
	}
	if !exists(filepath.Join(work, ".claude")) || !exists(filepath.Join(work, "f")) {
		t.Error("the user's own empty .claude (or the command's file) was removed")
	}
	// The sandbox works again after Shutdown.
	if out, code := sh(t, workspaceWrite, work, "cat f"); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("after Shutdown: exit %d: %s", code, out)
	}
	Shutdown()
}

// claimEnv makes the test binary a grove that claims placeholders for a
// root (TestHelperClaimPlaceholders): "hold" then waits to be killed,
// "sweep" exits at once (a later grove's start).
const claimEnv = "GROVE_TEST_CLAIM_ROOT"

func TestHelperClaimPlaceholders(t *testing.T) {
	root := os.Getenv(claimEnv)
	if root == "" {
		t.Skip("the grove process of TestPlaceholdersOfAKilledGroveAfterReboot")
	}
	if err := claimPlaceholders([]string{root}, nil); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(claimEnv+"_MODE") == "hold" {
		fmt.Println("claimed")
		_, _ = io.ReadAll(os.Stdin) // until killed
	}
	releasePlaceholders()
}

func claimProcess(t *testing.T, root, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperClaimPlaceholders$")
	cmd.Env = append(os.Environ(), claimEnv+"="+root, claimEnv+"_MODE="+mode)
	return cmd
}

// TestPlaceholdersOfAKilledGroveAfterReboot (issues 36.7, 31.8): a grove
// killed with -9 while its placeholders stand leaves them in a project
// that had none; after a reboot (the temp dir cleared, the pid gone) the
// next grove's start removes them, because the records live in
// $GROVE_HOME, not in $TMPDIR.
func TestPlaceholdersOfAKilledGroveAfterReboot(t *testing.T) {
	t.Setenv("GROVE_HOME", t.TempDir())
	work, _ := dirs(t)
	holder := claimProcess(t, work, "hold")
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := holder.StdinPipe()
	defer stdin.Close()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.Contains(line, "claimed") {
		_ = holder.Process.Kill()
		_ = holder.Wait()
		t.Fatalf("the holder said %q", line)
	}
	if !exists(filepath.Join(work, ".grove")) {
		t.Fatal("no placeholder was made")
	}
	_ = holder.Process.Signal(syscall.SIGKILL)
	_ = holder.Wait()
	// The reboot: the temp dir is empty again.
	tmp := os.Getenv("TMPDIR")
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	other, _ := dirs(t)
	if out, err := claimProcess(t, other, "sweep").CombinedOutput(); err != nil {
		t.Fatalf("the next grove: %v\n%s", err, out)
	}
	for _, n := range ProtectedNames {
		if exists(filepath.Join(work, n)) {
			t.Errorf("%s is left in the project after kill -9 and a reboot", n)
		}
	}
}

// TestSandboxedCommandCannotDropPlaceholderRecords (issue 31.8): the
// records of who uses a placeholder are beyond every sandboxed command,
// so one session's model cannot make another's exit drop its mounts.
func TestSandboxedCommandCannotDropPlaceholderRecords(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("placeholders are made only with user namespaces")
	}
	t.Setenv("GROVE_HOME", t.TempDir())
	work, _ := dirs(t)
	defer Shutdown()
	if out, code := sh(t, workspaceWrite, work, "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	rec := placeholderDir(filepath.Join(work, ".grove"))
	out, _ := sh(t, workspaceWrite, work, `rm -rf "$TMPDIR/grove-placeholders" "$GROVE_HOME/placeholders" 2>&1; echo done`)
	ents, err := os.ReadDir(rec)
	if err != nil || len(ents) == 0 {
		t.Fatalf("a sandboxed command removed the placeholder records (%v): %s", err, out)
	}
}
