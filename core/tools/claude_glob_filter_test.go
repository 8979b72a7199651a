package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// globFound is Glob's answer as a sorted list of paths relative to root.
func globFound(t *testing.T, root, out string) []string {
	t.Helper()
	if out == "No files found" {
		return nil
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		rel, err := filepath.Rel(root, l)
		if err != nil {
			t.Fatalf("Glob answered %q: %v", l, err)
		}
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	return got
}

// globIgnoreTree lays out a repository whose ignore files (.gitignore at
// the top and in src, .ignore, .git/info/exclude) exclude some files.
func globIgnoreTree(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, root, ".git/info/exclude", "secret.txt\n")
	write(t, root, ".gitignore", "node_modules/\n/build\n*.log\n!keep.log\nbuild2/\n!build2/x.go\n")
	write(t, root, ".ignore", "gen/*.go\n")
	write(t, root, "src/.gitignore", "local.go\n!wanted.log\n")
	for _, f := range []string{
		"main.go", "keep.log", "debug.log", "secret.txt", ".env",
		"node_modules/dep/index.go", "build/out.go", "src/build/ok.go",
		"gen/a.go", "gen/sub/b.go", "src/local.go", "src/wanted.log", "src/other.log",
		"build2/x.go", "src/lib.go", ".github/ci.yml",
	} {
		write(t, root, f, "x\n")
	}
}

// TestClaudeGlobListsIgnoredFilesByDefault: Claude Code's tools reference,
// "Glob tool behavior": "Glob does not respect .gitignore by default, so
// it finds gitignored files alongside tracked ones. This differs from
// Grep, which skips gitignored files." CLAUDE_CODE_GLOB_HIDDEN defaults
// to true ("The Glob tool includes dotfiles in its results"). Grep over
// the same tree skips both.
func TestClaudeGlobListsIgnoredFilesByDefault(t *testing.T) {
	t.Setenv("CLAUDE_CODE_GLOB_NO_IGNORE", "")
	t.Setenv("CLAUDE_CODE_GLOB_HIDDEN", "")
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	globIgnoreTree(t, root)
	got := globFound(t, root, run(t, r, env, "Glob", map[string]any{"pattern": "**/*"}).Output)
	want := []string{
		".env", ".github/ci.yml", ".gitignore", ".ignore",
		"build/out.go", "build2/x.go", "debug.log", "gen/a.go", "gen/sub/b.go", "keep.log", "main.go",
		"node_modules/dep/index.go", "secret.txt", "src/.gitignore", "src/build/ok.go", "src/lib.go",
		"src/local.go", "src/other.log", "src/wanted.log",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Glob **/* found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out := run(t, r, env, "Grep", map[string]any{"pattern": "x", "path": root}).Output; strings.Contains(out, "node_modules") || strings.Contains(out, ".env") {
		t.Errorf("Grep listed an ignored or hidden file:\n%s", out)
	}
}

// TestClaudeGlobNoIgnoreFalseHonoursIgnoreFiles: with
// CLAUDE_CODE_GLOB_NO_IGNORE=false ("To make Glob respect .gitignore, set
// CLAUDE_CODE_GLOB_NO_IGNORE=false", the tools reference) Glob drops what
// ripgrep's ignore files exclude, as Grep does: .gitignore with a nested
// one applying beneath its directory and a deeper negation winning, a
// file in an ignored directory staying ignored though negated, .ignore,
// .git/info/exclude; a search of a subdirectory still obeys its parents'
// files. Dotfiles stay listed (CLAUDE_CODE_GLOB_HIDDEN is untouched).
func TestClaudeGlobNoIgnoreFalseHonoursIgnoreFiles(t *testing.T) {
	t.Setenv("CLAUDE_CODE_GLOB_HIDDEN", "")
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	globIgnoreTree(t, root)
	want := []string{
		".env", ".github/ci.yml", ".gitignore", ".ignore",
		"gen/sub/b.go", "keep.log", "main.go", "src/.gitignore", "src/build/ok.go", "src/lib.go", "src/wanted.log",
	}
	for _, v := range []string{"false", "0", "FALSE", " no "} {
		t.Setenv("CLAUDE_CODE_GLOB_NO_IGNORE", v)
		got := globFound(t, root, run(t, r, env, "Glob", map[string]any{"pattern": "**/*"}).Output)
		if !slices.Equal(got, want) {
			t.Errorf("NO_IGNORE=%q: Glob **/* found\n%s\nwant\n%s", v, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// Searching src alone: the top .gitignore's *.log still applies, src's
	// own negation re-includes wanted.log.
	got := globFound(t, root, run(t, r, env, "Glob", map[string]any{"pattern": "*.log", "path": filepath.Join(root, "src")}).Output)
	if want := []string{"src/wanted.log"}; !slices.Equal(got, want) {
		t.Errorf("Glob *.log in src found %v, want %v", got, want)
	}
	// Any truthy value keeps Claude Code's default.
	t.Setenv("CLAUDE_CODE_GLOB_NO_IGNORE", "yes")
	if got := globFound(t, root, run(t, r, env, "Glob", map[string]any{"pattern": "**/*.log"}).Output); len(got) != 4 {
		t.Errorf("NO_IGNORE=yes: Glob **/*.log found %v, want all four", got)
	}
}

// TestClaudeGlobNoIgnoreFalseOutsideRepo: outside a git repository
// ripgrep reads no .gitignore, but .ignore still applies.
func TestClaudeGlobNoIgnoreFalseOutsideRepo(t *testing.T) {
	t.Setenv("CLAUDE_CODE_GLOB_NO_IGNORE", "false")
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	if _, inRepo := repoTop(context.Background(), env.Backend(), root); inRepo {
		t.Skip("the temporary directory is inside a git repository")
	}
	write(t, root, ".gitignore", "a.txt\n")
	write(t, root, ".ignore", "b.txt\n")
	write(t, root, "a.txt", "x\n")
	write(t, root, "b.txt", "x\n")
	got := globFound(t, root, run(t, r, env, "Glob", map[string]any{"pattern": "*.txt"}).Output)
	if want := []string{"a.txt"}; !slices.Equal(got, want) {
		t.Errorf("Glob found %v, want %v", got, want)
	}
}

// TestClaudeGlobHiddenFalseSkipsDotfiles: CLAUDE_CODE_GLOB_HIDDEN=false
// drops Claude Code's --hidden: hidden files and everything in hidden
// directories are left out, ignored files still listed.
func TestClaudeGlobHiddenFalseSkipsDotfiles(t *testing.T) {
	t.Setenv("CLAUDE_CODE_GLOB_NO_IGNORE", "")
	t.Setenv("CLAUDE_CODE_GLOB_HIDDEN", "false")
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	write(t, root, ".gitignore", "b.txt\n")
	write(t, root, ".env", "x\n")
	write(t, root, ".config/a.txt", "x\n")
	write(t, root, "b.txt", "x\n")
	write(t, root, "sub/.hidden.txt", "x\n")
	got := globFound(t, root, run(t, r, env, "Glob", map[string]any{"pattern": "**/*"}).Output)
	if want := []string{"b.txt"}; !slices.Equal(got, want) {
		t.Errorf("Glob found %v, want %v", got, want)
	}
}

// TestEnvTruthy: Claude Code's isEnvTruthy, with its `|| "true"` default
// for an unset or empty variable.
func TestEnvTruthy(t *testing.T) {
	for v, want := range map[string]bool{
		"": true, "1": true, "true": true, "TRUE": true, " yes ": true, "on": true,
		"0": false, "false": false, "no": false, "off": false, "2": false,
	} {
		if got := envTruthy(v, true); got != want {
			t.Errorf("envTruthy(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestClaudeGlobOldestFirst: Claude Code's Glob runs `rg --files
// --sort=modified`, and ripgrep's --sort is ascending ("For --sort,
// results are sorted in ascending order where as for --sortr, results are
// sorted in descending order", ripgrep's "add --sort and --sortr flags"):
// the oldest file first, ties by name, and past 100 matches the 100
// oldest with the truncation note. glob_files keeps newest first.
func TestClaudeGlobOldestFirst(t *testing.T) {
	t.Setenv("CLAUDE_CODE_GLOB_NO_IGNORE", "")
	r, env := claudeRegistry(t), testEnv(t)
	root := env.Cwd
	base := time.Now().Add(-time.Hour)
	touch := func(name string, age int) {
		write(t, root, name, "x\n")
		at := base.Add(time.Duration(age) * time.Second)
		if err := os.Chtimes(filepath.Join(root, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	touch("new.go", 30)
	touch("old.go", 10)
	touch("mid-b.go", 20)
	touch("mid-a.go", 20)
	p := func(n string) string { return filepath.Join(root, n) }
	if got, want := run(t, r, env, ClaudeGlob, map[string]any{"pattern": "*.go"}).Output, strings.Join([]string{p("old.go"), p("mid-a.go"), p("mid-b.go"), p("new.go")}, "\n"); got != want {
		t.Errorf("Glob order:\n%s\nwant:\n%s", got, want)
	}
	gf := NewRegistry()
	if err := gf.Register(GlobFiles()); err != nil {
		t.Fatal(err)
	}
	if got, want := run(t, gf, env, GlobFilesName, map[string]any{"pattern": "*.go"}).Output, strings.Join([]string{p("new.go"), p("mid-a.go"), p("mid-b.go"), p("old.go")}, "\n"); got != want {
		t.Errorf("glob_files order:\n%s\nwant:\n%s", got, want)
	}
	for i := range 100 {
		touch(fmt.Sprintf("many/f%03d.txt", i), 100+i)
	}
	touch("many/newest.txt", 1000)
	out := run(t, r, env, ClaudeGlob, map[string]any{"pattern": "many/*"}).Output
	lines := strings.Split(out, "\n")
	if len(lines) != 101 || lines[0] != p("many/f000.txt") || lines[99] != p("many/f099.txt") || lines[100] != "(Results are truncated. Consider using a more specific path or pattern.)" {
		t.Errorf("101 matches: %d lines, first %q, last two %q", len(lines), lines[0], lines[max(0, len(lines)-2):])
	}
}
