package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// grepFound is the sorted file list of a files_with_matches answer.
func grepFound(out string) []string {
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "Found ") {
		return nil
	}
	slices.Sort(lines[1:])
	return lines[1:]
}

// TestClaudeGrepHonoursIgnoreFiles: as ripgrep does, Grep skips what
// .gitignore (inside a repository), .ignore and .git/info/exclude ignore,
// nested ignore files apply beneath their directory with a deeper
// negation winning, a file in an ignored directory stays ignored even when
// negated, a search of a subdirectory still obeys its parents' files, and
// a file named as path is searched whatever the ignore files say.
func TestClaudeGrepHonoursIgnoreFiles(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, root, ".git/info/exclude", "secret.txt\n")
	write(t, root, ".gitignore", "# build output\nnode_modules/\n/build\n*.log\n!keep.log\nbuild2/\n!build2/x.go\n")
	write(t, root, ".ignore", "gen/*.go\n")
	write(t, root, "src/.gitignore", "local.go\n!wanted.log\n")
	for _, f := range []string{
		"main.go", "keep.log", "debug.log", "secret.txt",
		"node_modules/dep/index.go", "build/out.go", "src/build/ok.go",
		"gen/a.go", "gen/sub/b.go", "src/local.go", "src/wanted.log", "src/other.log",
		"build2/x.go", "src/lib.go",
	} {
		write(t, root, f, "needle\n")
	}
	p := func(n string) string { return filepath.Join(root, filepath.FromSlash(n)) }
	got := grepFound(run(t, r, env, "Grep", map[string]any{"pattern": "needle"}).Output)
	want := []string{p("gen/sub/b.go"), p("keep.log"), p("main.go"), p("src/build/ok.go"), p("src/lib.go"), p("src/wanted.log")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Grep found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Searching src alone: the top .gitignore's *.log still applies, src's
	// own negation re-includes wanted.log.
	got = grepFound(run(t, r, env, "Grep", map[string]any{"pattern": "needle", "path": p("src")}).Output)
	want = []string{p("src/build/ok.go"), p("src/lib.go"), p("src/wanted.log")}
	if !slices.Equal(got, want) {
		t.Errorf("Grep of src found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out := run(t, r, env, "Grep", map[string]any{"pattern": "needle", "path": p("debug.log")}).Output; out != "Found 1 file\n"+p("debug.log") {
		t.Errorf("a named ignored file: %q", out)
	}
}

// TestClaudeGrepGitignoreNeedsRepo: outside a git repository ripgrep does
// not read .gitignore, but .ignore still applies.
func TestClaudeGrepGitignoreNeedsRepo(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	write(t, root, ".gitignore", "a.txt\n")
	write(t, root, ".ignore", "b.txt\n")
	write(t, root, "a.txt", "needle\n")
	write(t, root, "b.txt", "needle\n")
	if _, inRepo := repoTop(context.Background(), env.Backend(), root); inRepo {
		t.Skip("the temporary directory is inside a git repository")
	}
	got := grepFound(run(t, r, env, "Grep", map[string]any{"pattern": "needle"}).Output)
	if want := []string{filepath.Join(root, "a.txt")}; !slices.Equal(got, want) {
		t.Errorf("Grep found %v, want %v", got, want)
	}
}
