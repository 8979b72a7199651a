package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	MaybeRunHelper()
	goleak.VerifyTestMain(m)
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if _, err := Supported(); err != nil {
		t.Skipf("kernel without Landlock: %v", err)
	}
}

// dirs returns a workspace and an outside dir that is neither under the
// workspace nor under TMPDIR (which workspace-write allows).
func dirs(t *testing.T) (work, outside string) {
	t.Helper()
	base := t.TempDir()
	work = filepath.Join(base, "work")
	tmp := filepath.Join(work, "tmp")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{work, tmp, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	return work, outside
}

func run(t *testing.T, mode protocol.SandboxMode, cwd, script string) (string, error) {
	t.Helper()
	cmd, err := Command(context.Background(), protocol.SandboxPolicy{Mode: mode}, cwd, []string{"bash", "-c", script})
	if err != nil {
		return "", err
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestWorkspaceWrite(t *testing.T) {
	requireLandlock(t)
	work, outside := dirs(t)
	if out, err := run(t, protocol.SandboxWorkspaceWrite, work, "echo ok > inside.txt && cat inside.txt"); err != nil || !strings.Contains(out, "ok") {
		t.Fatalf("write inside: %v %s", err, out)
	}
	out, err := run(t, protocol.SandboxWorkspaceWrite, work, "echo x > "+filepath.Join(outside, "f.txt"))
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Fatalf("write outside should fail with EACCES: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("file outside the workspace was created")
	}
	// Reading outside is fine; so is /dev/null.
	if out, err := run(t, protocol.SandboxWorkspaceWrite, work, "ls "+outside+" >/dev/null && echo read-ok"); err != nil || !strings.Contains(out, "read-ok") {
		t.Fatalf("read outside: %v %s", err, out)
	}
}

func TestReadOnly(t *testing.T) {
	requireLandlock(t)
	work, _ := dirs(t)
	out, err := run(t, protocol.SandboxReadOnly, work, "echo x > f.txt")
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Fatalf("read-only write: %v %s", err, out)
	}
	if out, err := run(t, protocol.SandboxReadOnly, work, "cat /etc/hostname >/dev/null; echo fine"); err != nil || !strings.Contains(out, "fine") {
		t.Fatalf("read-only read: %v %s", err, out)
	}
}

func TestDangerFullAccess(t *testing.T) {
	work, outside := dirs(t)
	if out, err := run(t, protocol.SandboxDangerFullAccess, work, "echo x > "+filepath.Join(outside, "f.txt")); err != nil {
		t.Fatalf("full access: %v %s", err, out)
	}
}

func TestNoLandlockRefusesInsteadOfRunningUnconfined(t *testing.T) {
	work, outside := dirs(t)
	old := abiProbe
	abiProbe = func() (int, error) { return 0, errors.New("ENOSYS") }
	defer func() { abiProbe = old }()
	marker := filepath.Join(outside, "ran")
	_, err := run(t, protocol.SandboxWorkspaceWrite, work, "touch "+marker)
	if err == nil || !strings.Contains(err.Error(), "requires Landlock") || !strings.Contains(err.Error(), "danger-full-access") {
		t.Fatalf("want a clear refusal, got %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("command ran unconfined")
	}
}

func TestCheckWritable(t *testing.T) {
	work, outside := dirs(t)
	ws := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	if err := CheckWritable(ws, work, filepath.Join(work, "a", "new.go")); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(ws, work, filepath.Join(outside, "x")); err == nil || !strings.Contains(err.Error(), "outside the writable roots") {
		t.Fatalf("outside: %v", err)
	}
	// A symlink inside the workspace pointing outside does not escape.
	link := filepath.Join(work, "escape")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(ws, work, filepath.Join(link, "x")); err == nil {
		t.Fatal("symlink escape allowed")
	}
	extra := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{outside}}
	if err := CheckWritable(extra, work, filepath.Join(outside, "x")); err != nil {
		t.Fatalf("writable_roots: %v", err)
	}
	if err := CheckWritable(protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}, work, filepath.Join(work, "x")); err == nil {
		t.Fatal("read-only allowed a write")
	}
}
