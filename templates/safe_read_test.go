package templates

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Issue 31.2 and red team: project agent definitions are model-writable.
// One linked to grove's environment is a problem, never read into a role
// prompt; a FIFO named like a definition does not hang the start.
func TestProjectTemplatesReadSafely(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs is Linux's")
	}
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cwd, ".grove", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", filepath.Join(dir, "leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "hang.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Load(Dirs{Cwd: cwd, GroveHome: t.TempDir(), UserHome: t.TempDir()}, Options{})
	found := map[string]string{}
	for _, p := range c.Problems() {
		found[filepath.Base(p.Path)] = p.Err
		if strings.Contains(p.Err, "PATH=") {
			t.Errorf("grove's environment in a problem: %s", p.Err)
		}
	}
	if !strings.Contains(found["leak.md"], "/proc") || !strings.Contains(found["hang.md"], "FIFO") {
		t.Fatalf("problems %v", found)
	}
}
