package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootWritesBeneathItself(t *testing.T) {
	dir := t.TempDir()
	r, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("sub/a.txt", []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("sub/a.txt", []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := r.ReadFile("sub/a.txt"); err != nil || string(b) != "two" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if m, err := r.Lstat("sub/a.txt"); err != nil || !m.IsRegular() || m.Perm() != 0o600 {
		t.Errorf("Lstat = %v, %v", m, err)
	}
	if m, err := r.Lstat("sub"); err != nil || !m.IsDir() {
		t.Errorf("Lstat(sub) = %v, %v", m, err)
	}
	if _, err := r.Lstat("sub/none"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "sub/none")) {
		t.Errorf("Lstat of a missing file = %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := r.Remove("sub/a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("sub"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sub still there: %v", err)
	}
}

func TestRootRefusesSymlinksAndEscapes(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f"), filepath.Join(dir, "flink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in", filepath.Join(dir, "inlink")); err != nil { // stays inside, still refused
		t.Fatal(err)
	}
	r, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, op := range map[string]func() error{
		"write through a dir link":    func() error { return r.WriteFile("out/g", []byte("x"), 0o644) },
		"write through an inner link": func() error { return r.WriteFile("inlink/g", []byte("x"), 0o644) },
		"mkdir through a link":        func() error { return r.Mkdir("out/d", 0o755) },
		"remove through a link":       func() error { return r.Remove("out/f") },
		"read a file link":            func() error { _, err := r.ReadFile("flink"); return err },
		"lstat through a link":        func() error { _, err := r.Lstat("out/f"); return err },
	} {
		if err := op(); !errors.Is(err, ErrEscape) {
			t.Errorf("%s: err = %v, want ErrEscape", name, err)
		}
	}
	for _, rel := range []string{"../x", "a/../../x", "/etc/x", "", "a//b", "./a"} {
		if err := r.WriteFile(rel, []byte("x"), 0o644); err == nil {
			t.Errorf("WriteFile(%q) succeeded", rel)
		}
	}
	// A symlink as the last name is replaced, never written through.
	if err := r.WriteFile("flink", []byte("replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f")); string(b) != "outside" {
		t.Errorf("outside file changed to %q", b)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside holds %v", entries)
	}
}
