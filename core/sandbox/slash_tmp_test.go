//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// The temp roots of workspace-write, as Codex's
// SandboxPolicy::get_writable_roots_with_cwd (codex-rs/protocol/src/
// protocol.rs) has them: /tmp unless exclude_slash_tmp, $TMPDIR (set,
// absolute) unless exclude_tmpdir_env_var; each key removes only its own.
func TestTempRootsFollowCodex(t *testing.T) {
	other := t.TempDir()
	ww := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	for _, tc := range []struct {
		name           string
		tmpdir         string
		slash, envVar  bool
		want           []string
		wantCommandTmp string
	}{
		{"defaults, TMPDIR unset", "", false, false, []string{"/tmp"}, "/tmp"},
		{"defaults, TMPDIR elsewhere: both", other, false, false, []string{"/tmp", other}, other},
		{"exclude_slash_tmp, TMPDIR unset: none", "", true, false, nil, ""},
		{"exclude_slash_tmp, TMPDIR elsewhere", other, true, false, []string{other}, other},
		{"exclude_tmpdir_env_var", other, false, true, []string{"/tmp"}, "/tmp"},
		{"both excluded", other, true, true, nil, ""},
		// Codex's keys are literal: TMPDIR=/tmp keeps /tmp writable
		// through $TMPDIR when only exclude_slash_tmp is set.
		{"exclude_slash_tmp with TMPDIR=/tmp", "/tmp", true, false, []string{"/tmp"}, "/tmp"},
		{"both excluded with TMPDIR=/tmp", "/tmp", true, true, nil, ""},
		{"relative TMPDIR is ignored", "tmp", true, false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TMPDIR", tc.tmpdir)
			p := ww
			p.ExcludeSlashTmp, p.ExcludeTmpdirEnvVar = tc.slash, tc.envVar
			if got := TempRoots(p); !slices.Equal(got, tc.want) {
				t.Fatalf("TempRoots = %q, want %q", got, tc.want)
			}
			want := tc.wantCommandTmp
			if want != "" {
				want, _ = resolve(want)
			}
			if got := WritableTempDir(p); got != want {
				t.Fatalf("WritableTempDir = %q, want %q", got, want)
			}
		})
	}
	if got := WritableTempDir(protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}); got != "" {
		t.Fatalf("read-only names a temp dir for commands: %q", got)
	}
}

// A real sandboxed command: /tmp is writable under workspace-write by
// default and not with exclude_slash_tmp = true (TMPDIR unset, as on most
// Linux systems; the test's directories live under /tmp).
func TestExcludeSlashTmpIsEnforced(t *testing.T) {
	requireLandlock(t, 1)
	t.Setenv("TMPDIR", "")
	work := t.TempDir()
	target := t.TempDir() // under /tmp, outside work
	if !within("/tmp", target) {
		t.Skipf("the test's temp dir %s is not under /tmp", target)
	}
	ww := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	excluded := ww
	excluded.ExcludeSlashTmp = true
	// Without namespaces a /tmp root holding $GROVE_HOME (this test's is
	// under /tmp) refuses to run: the allowed case needs them.
	t.Run("allowed by default", func(t *testing.T) {
		if !namespacesAvailable() {
			t.Skip("no user namespaces: the test's GROVE_HOME under /tmp refuses a /tmp root")
		}
		f := filepath.Join(target, "default")
		if out, code := sh(t, ww, work, "echo x > "+f); code != 0 || !exists(f) {
			t.Fatalf("write to /tmp refused by default: exit %d: %s", code, out)
		}
	})
	bothWays(t, func(t *testing.T) {
		f := filepath.Join(target, "excluded")
		out, code := sh(t, excluded, work, "echo x > "+f)
		if code == 0 || !deniedByKernel(out) || exists(f) {
			t.Fatalf("write to /tmp with exclude_slash_tmp: want EACCES/EROFS, exit %d: %s", code, out)
		}
		// The command's own TMPDIR does not move the roots: grove computes
		// them from its own environment before the command starts.
		rel, _ := filepath.Rel("/tmp", target)
		out, code = sh(t, excluded, work, `export TMPDIR=/tmp; mkdir "$TMPDIR/`+rel+`/viaenv"`)
		if code == 0 || !deniedByKernel(out) || exists(filepath.Join(target, "viaenv")) {
			t.Fatalf("mkdir under /tmp via the command's TMPDIR: exit %d: %s", code, out)
		}
		// A link in the workspace into /tmp carries no write there.
		link := filepath.Join(work, "scratch")
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		out, code = sh(t, excluded, work, "echo x > scratch/vialink")
		if code == 0 || !deniedByKernel(out) || exists(filepath.Join(target, "vialink")) {
			t.Fatalf("write through a workspace link into /tmp: exit %d: %s", code, out)
		}
		if err := CheckWritable(excluded, work, "scratch/vialink"); err == nil {
			t.Fatal("apply_patch's check lets a workspace link write into an excluded /tmp")
		}
		if out, code := sh(t, excluded, work, "echo x > inside && cat inside"); code != 0 {
			t.Fatalf("the workspace itself stopped being writable: exit %d: %s", code, out)
		}
	})
}

// TMPDIR=/tmp with both keys: neither entry adds /tmp back.
func TestBothTempKeysWithTMPDIRSlashTmp(t *testing.T) {
	requireLandlock(t, 1)
	t.Setenv("TMPDIR", "/tmp")
	work := t.TempDir()
	target := t.TempDir()
	p := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
	if roots := WritableRoots(p, work); len(roots) != 1 {
		t.Fatalf("roots %q, want only the workspace", roots)
	}
	f := filepath.Join(target, "f")
	out, code := sh(t, p, work, "echo x > "+f)
	if code == 0 || !deniedByKernel(out) || exists(f) {
		t.Fatalf("write to /tmp: want EACCES/EROFS, exit %d: %s", code, out)
	}
}
