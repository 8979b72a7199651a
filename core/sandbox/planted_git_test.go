//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plantBare writes a bare repository layout in dir whose config runs
// fsmonitor, which creates marker when git runs there.
func plantBare(dir, marker string) string {
	return fmt.Sprintf(`mkdir -p %[1]q/objects %[1]q/refs/heads && echo 'ref: refs/heads/main' > %[1]q/HEAD && printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "touch %[2]s; false"\n' > %[1]q/config`, dir, marker)
}

// gitRunsPlant runs the user's `git status` in dir, unsandboxed, and
// reports whether the planted fsmonitor ran.
func gitRunsPlant(t *testing.T, dir, marker string) bool {
	t.Helper()
	cmd := exec.Command("git", "status")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	_ = cmd.Run()
	return exists(marker)
}

// TestPlantedBareRepositoryIsDisarmed (issue 31.4): a command that writes
// HEAD, objects/, refs/ and a config with core.fsmonitor (in the fresh
// project dir itself, or in a subdirectory) gets its layout's HEAD moved
// aside, so the user's next `git status` there runs nothing; the output
// says so. With and without user namespaces.
func TestPlantedBareRepositoryIsDisarmed(t *testing.T) {
	requireLandlock(t, 1)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			if ns && !namespacesAvailable() {
				t.Skip("no user namespaces here")
			}
			if !ns {
				withoutNamespaces(t)
			}
			for _, where := range []string{".", "sub/vendored"} {
				work, outside := dirs(t)
				marker := filepath.Join(outside, "fsmonitor-ran")
				out, _ := sh(t, workspaceWrite, work, plantBare(where, marker)+"; echo planted")
				if !strings.Contains(out, "planted") {
					t.Fatalf("the plant did not run: %s", out)
				}
				if !strings.Contains(out, "bare git repository layout") {
					t.Errorf("%s: the output does not say the layout was disarmed: %s", where, out)
				}
				if gitRunsPlant(t, filepath.Join(work, where), marker) {
					t.Errorf("%s: the user's git status ran the planted fsmonitor", where)
				}
			}
		})
	}
}

// TestNestedGitInALargeRootIsMoved (issue 31.14): in a root of more than
// 5,000 entries (the old cap skipped the check there) a nested .git with
// core.fsmonitor a command makes is still moved aside.
func TestNestedGitInALargeRootIsMoved(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("without namespaces every root is checked anyway")
	}
	work, outside := dirs(t)
	for d := range 60 {
		dir := filepath.Join(work, fmt.Sprintf("pkg%02d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer Shutdown()
	if out, code := sh(t, workspaceWrite, work, "true"); code != 0 { // the helper's baseline
		t.Fatalf("exit %d: %s", code, out)
	}
	marker := filepath.Join(outside, "fsmonitor-ran")
	script := fmt.Sprintf(`mkdir -p pkg42/lib && cd pkg42/lib && git init -q . && git config core.fsmonitor "touch %s; false"; echo planted`, marker)
	out, _ := sh(t, workspaceWrite, work, script)
	if !strings.Contains(out, "planted") || !strings.Contains(out, "Moved to") {
		t.Fatalf("the nested .git was not moved aside: %s", out)
	}
	if gitRunsPlant(t, filepath.Join(work, "pkg42", "lib"), marker) {
		t.Error("the user's git status ran the planted fsmonitor")
	}
}

// TestTempRootTopIsChecked (issue 31.4): $TMPDIR is a writable root; a
// .git, .agents or AGENTS.md a command leaves at its top would reach every
// later session started under it, so it is moved aside too.
func TestTempRootTopIsChecked(t *testing.T) {
	requireLandlock(t, 1)
	work, _ := dirs(t)
	// A temp root of its own, outside the project (as /tmp is).
	t.Setenv("TMPDIR", t.TempDir())
	defer Shutdown()
	out, _ := sh(t, workspaceWrite, work, `mkdir -p "$TMPDIR/.agents/skills/x" && echo evil > "$TMPDIR/.agents/skills/x/SKILL.md" && echo obey > "$TMPDIR/AGENTS.md" && echo planted`)
	if !strings.Contains(out, "planted") {
		t.Fatalf("the plant did not run: %s", out)
	}
	tmp := os.Getenv("TMPDIR")
	for _, n := range []string{".agents", "AGENTS.md"} {
		if exists(filepath.Join(tmp, n)) {
			t.Errorf("$TMPDIR/%s stays: %s", n, out)
		}
	}
}

// bigRoot makes a root of 72,000 entries (720 directories of 100 files),
// its directories stamped an hour ago (settled, as a project is).
func bigRoot(b *testing.B) string {
	root := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for d := range 720 {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.Chtimes(dir, old, old); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Chtimes(root, old, old); err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkRootRescan is the check after each command in a root of 72,000
// entries where the command added a file to one directory: 721 stamps
// compared, one directory read.
func BenchmarkRootRescan(b *testing.B) {
	root := bigRoot(b)
	s, _, err := newRootScan([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := os.WriteFile(filepath.Join(root, "d100", fmt.Sprintf("new%d", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
		if _, errs := s.rescan(); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkRootFullWalk is the walk the check did after every command
// before (and still does once, at the helper's start), for comparison.
func BenchmarkRootFullWalk(b *testing.B) {
	root := bigRoot(b)
	b.ResetTimer()
	for range b.N {
		if _, _, err := newRootScan([]string{root}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
