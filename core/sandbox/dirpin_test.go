package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// startPinned runs `pwd; touch here` in pin's directory through Start and
// returns its output, or the start error.
func startPinned(t *testing.T, policy protocol.SandboxPolicy, cwd string, pin *DirPin) (string, error) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	p, err := Start(StartRequest{Policy: policy, Cwd: cwd, Dir: pin.Path, DirPin: pin, Argv: []string{"bash", "-c", "pwd; touch here"}, Env: os.Environ(), Out: pw})
	_ = pw.Close()
	if err != nil {
		return "", err
	}
	out, _ := io.ReadAll(pr)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return string(out), nil
}

// Issue 31 item 6 at the helper: between grove's last check and the
// command's chdir, the pinned directory is swapped for a symlink to the
// home directory, or for another directory of the same name. The helper
// opens it again without following symlinks and compares its identity:
// the command does not start. Unswapped, it starts there (pwd is the real
// path). With and without namespaces, sandboxed and unconfined.
func TestEscapePinnedWorkdirSwap(t *testing.T) {
	for _, ns := range []bool{true, false} {
		for _, mode := range []protocol.SandboxMode{protocol.SandboxWorkspaceWrite, protocol.SandboxDangerFullAccess} {
			t.Run(string(mode)+map[bool]string{true: "", false: "-no-userns"}[ns], func(t *testing.T) {
				if !ns {
					withoutNamespaces(t)
				}
				if _, err := Supported(); err != nil && mode != protocol.SandboxDangerFullAccess {
					t.Skip(err)
				}
				work, outside := dirs(t)
				policy := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: mode}
				sub := filepath.Join(work, "sub")
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				pin, err := PinDir(sub)
				if err != nil {
					t.Fatal(err)
				}
				out, err := startPinned(t, policy, work, pin)
				if err != nil || strings.TrimSpace(out) != sub || !exists(filepath.Join(sub, "here")) {
					t.Fatalf("unswapped: %q %v", out, err)
				}
				// Swapped for a symlink to outside.
				if err := os.Rename(sub, sub+".old"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(outside, sub); err != nil {
					t.Fatal(err)
				}
				if _, err := startPinned(t, policy, work, pin); err == nil || !strings.Contains(err.Error(), "changed while waiting") || exists(filepath.Join(outside, "here")) {
					t.Fatalf("symlink swap: started (%v)", err)
				}
				// Swapped for another real directory of the same name.
				if err := os.Remove(sub); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				if _, err := startPinned(t, policy, work, pin); err == nil || !strings.Contains(err.Error(), "another directory") {
					t.Fatalf("directory swap: started (%v)", err)
				}
			})
		}
	}
}
