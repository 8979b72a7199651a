package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project makes a repository root (a .git directory) holding files
// (relative path → content; a .sh file is made executable).
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// trustedProject writes a grove config trusting root and returns its path.
func trustedProject(t *testing.T, root string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[projects."+tomlQuote(root)+"]\ntrust_level = \"trusted\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testEnv is a minimal scrubbed environment for hooks: PATH only.
func testEnv() []string { return []string{"PATH=" + os.Getenv("PATH")} }

func byEvent(hs []Hook, ev Event) []Hook {
	var out []Hook
	for _, h := range hs {
		if h.Event == ev {
			out = append(out, h)
		}
	}
	return out
}
