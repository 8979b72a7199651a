package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// modelTree is a workspace (a root) and a directory outside it.
func modelTree(t *testing.T) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestReadForModelRefusesWhatTheSandboxHides(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs and openat2 are Linux's")
	}
	ws, outside := modelTree(t)
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "notes.md"), "in the workspace")
	write(filepath.Join(outside, "secret.txt"), "outside every root")
	link("/proc/self/environ", "screenshot.png")
	link("/proc/self", "self")
	link("/proc/self/root/proc/self/environ", "via-root.png")
	link(filepath.Join(outside, "secret.txt"), "out.md")
	link("notes.md", "same.md")
	link("/dev/zero", "zero.png")
	link("/sys/kernel/mm/transparent_hugepage/enabled", "sys.md")
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(outside, "users-link.md")); err != nil {
		t.Fatal(err)
	}
	policy := ReadPolicy{Roots: []string{ws}}
	cases := []struct {
		path, want, refusal string
	}{
		{filepath.Join(ws, "notes.md"), "in the workspace", ""},
		{filepath.Join(ws, "same.md"), "in the workspace", ""},
		{filepath.Join(outside, "users-link.md"), "outside every root", ""},
		{filepath.Join(ws, "screenshot.png"), "", "/proc"},
		{filepath.Join(ws, "self", "environ"), "", "/proc"},
		{filepath.Join(ws, "via-root.png"), "", "/proc"},
		{"/proc/self/environ", "", "/proc"},
		{filepath.Join(ws, "out.md"), "", "leads out of the workspace"},
		{filepath.Join(ws, "zero.png"), "", "/dev"},
		{filepath.Join(ws, "sys.md"), "", "/sys"},
		{filepath.Join(ws, "fifo.md"), "", "a FIFO"},
		{filepath.Join(ws, "dir.md"), "", "a directory"},
	}
	for _, c := range cases {
		got, err := ReadForModel(c.path, policy)
		if c.refusal == "" {
			if err != nil || string(got) != c.want {
				t.Errorf("%s: got %q, %v; want %q", c.path, got, err, c.want)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.refusal) {
			t.Errorf("%s: got %q, %v; want a refusal naming %q", c.path, got, err, c.refusal)
		}
		if strings.Contains(string(got), "PATH=") {
			t.Errorf("%s: grove's environment was read", c.path)
		}
	}
}

func TestReadForModelSizeCap(t *testing.T) {
	ws, _ := modelTree(t)
	p := filepath.Join(ws, "big.md")
	if err := os.WriteFile(p, make([]byte, 1025), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadForModel(p, ReadPolicy{Roots: []string{ws}, MaxBytes: 1024}); err == nil || !strings.Contains(err.Error(), "over the 1024-byte limit") {
		t.Fatalf("1025 bytes under a 1024 cap: %v", err)
	}
	if b, err := ReadForModel(p, ReadPolicy{Roots: []string{ws}, MaxBytes: 1025}); err != nil || len(b) != 1025 {
		t.Fatalf("1025 bytes under a 1025 cap: %d, %v", len(b), err)
	}
	if _, err := ReadForModel("rel.md", ReadPolicy{}); err == nil {
		t.Fatal("a relative path was read")
	}
}

// Red team: the path is checked, then a directory on it is swapped for a
// symlink to /proc/self before grove opens it. The open refuses every
// symlink, so the swap fails the read instead of leaking.
func TestReadForModelSwapAfterCheck(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("openat2 is Linux's")
	}
	ws, _ := modelTree(t)
	dir := filepath.Join(ws, "shots")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "environ"), []byte("harmless"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "environ")
	real, err := resolveChecked(p, []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self", dir); err != nil {
		t.Fatal(err)
	}
	got, err := readPinned(p, real, DefaultMaxBytes)
	if err == nil || !errors.Is(err, ErrEscape) {
		t.Fatalf("swapped path read: %q, %v", got, err)
	}
}

func TestImageTypeByContent(t *testing.T) {
	cases := map[string]string{
		"\x89PNG\r\n\x1a\nrest":    "image/png",
		"\xff\xd8\xff\xe0JFIF":     "image/jpeg",
		"GIF89a....":               "image/gif",
		"GIF87a....":               "image/gif",
		"RIFF\x00\x00\x00\x00WEBP": "image/webp",
		"PATH=/usr/bin\x00HOME=/":  "",
		"<svg xmlns=":              "",
		"":                         "",
	}
	for data, want := range cases {
		if got := ImageType([]byte(data)); got != want {
			t.Errorf("ImageType(%q) = %q, want %q", data, got, want)
		}
	}
	ws, _ := modelTree(t)
	p := filepath.Join(ws, "shot.png")
	if err := os.WriteFile(p, []byte("OPENAI_API_KEY=sk-x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadImage(p, ReadPolicy{Roots: []string{ws}}); err == nil || !strings.Contains(err.Error(), "not a PNG, JPEG, GIF or WebP") {
		t.Fatalf("a text file named .png: %v", err)
	}
}
