package project

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestChainStopsAtTheRepositoryRoot(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{deep, filepath.Join(repo, "a"), repo}
	if got := Chain(deep); !slices.Equal(got, want) {
		t.Fatalf("Chain = %v, want %v", got, want)
	}
	if root, ok := Root(deep); !ok || root != repo {
		t.Fatalf("Root = %q %v", root, ok)
	}
}

func TestChainOutsideARepositoryIsOnlyTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if root, ok := Root(filepath.Dir(dir)); ok {
		t.Skipf("the temp dir lies inside a repository (%s/.git): nothing to test here", root)
	}
	if got := Chain(dir); !slices.Equal(got, []string{dir}) {
		t.Fatalf("Chain = %v", got)
	}
}

func TestPlaceholderGitMarksNoRoot(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !IsRoot(repo) {
		t.Fatal("a .git of any kind marks a root when no placeholder check says otherwise")
	}
	SetPlaceholderCheck(func(p string) bool { return p == filepath.Join(repo, ".git") })
	t.Cleanup(func() { grovePlaceholder.Store(nil) })
	if IsRoot(repo) {
		t.Fatal("a grove placeholder .git marked a root")
	}
}
