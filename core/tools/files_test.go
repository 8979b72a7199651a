package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "a.go", "package a\n\nfunc A() {}\nfunc B() {}\n")
	write(t, env.Cwd, "crlf.txt", "one\r\ntwo")
	write(t, env.Cwd, "empty.txt", "")
	write(t, env.Cwd, "long.txt", strings.Repeat("é", 700)+"\n")
	write(t, env.Cwd, "bin.dat", "func\x00binary")
	write(t, env.Cwd, "sub/x.txt", "x\n")
	var big strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	write(t, env.Cwd, "big.txt", big.String())
	for _, tc := range []struct {
		name, args, want string
		isErr            bool
	}{
		{"whole file", `{"path":"a.go"}`, "L1: package a\nL2: \nL3: func A() {}\nL4: func B() {}\n", false},
		{"offset and limit", `{"path":"a.go","offset":3,"limit":1}`, "L3: func A() {}\n[… 1 more lines; continue with offset 4]\n", false},
		{"file_path alias", `{"file_path":"a.go","offset":4}`, "L4: func B() {}\n", false},
		{"absolute path", fmt.Sprintf(`{"path":%q,"offset":4}`, filepath.Join(env.Cwd, "a.go")), "L4: func B() {}\n", false},
		{"CRLF and no final newline", `{"path":"crlf.txt"}`, "L1: one\nL2: two\n", false},
		{"empty file", `{"path":"empty.txt"}`, "(the file is empty)", false},
		{"long line is cut at 500 characters", `{"path":"long.txt"}`, "L1: " + strings.Repeat("é", 500) + " [… line truncated]\n", false},
		{"default limit is 2000 lines", `{"path":"big.txt","offset":2000}`, "L2000: line 2000\nL2001: line 2001\n", false},
		{"missing path", `{}`, `invalid arguments for read_file: field "path" is required (expected string: the file to read)`, true},
		{"missing file", `{"path":"missing.go"}`, "read_file: missing.go: no such file", true},
		{"directory", `{"path":"sub"}`, "read_file: sub is a directory; use list_dir to see what it holds", true},
		{"offset past the end", `{"path":"a.go","offset":99}`, "read_file: offset 99 is past the end of a.go: the file has 4 lines", true},
		{"binary", `{"path":"bin.dat"}`, "read_file: bin.dat looks like a binary file; not showing it", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, r, env, "read_file", tc.args)
			if tc.name == "default limit is 2000 lines" {
				// 2000 lines from offset 2000, then the rest.
				if res.IsError || !strings.HasPrefix(res.Output, tc.want) || !strings.HasSuffix(res.Output, "L2500: line 2500\n") {
					t.Errorf("got %.200q", res.Output)
				}
				res = run(t, r, env, "read_file", `{"path":"big.txt"}`)
				if !strings.HasSuffix(res.Output, "L2000: line 2000\n[… 500 more lines; continue with offset 2001]\n") || strings.Count(res.Output, "\n") != 2001 {
					t.Errorf("default limit: %q", res.Output[len(res.Output)-80:])
				}
				return
			}
			if res.IsError != tc.isErr || res.Output != tc.want {
				t.Errorf("got %q (error %v), want %q", res.Output, res.IsError, tc.want)
			}
		})
	}
}

func TestListDir(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "b.txt", "")
	write(t, env.Cwd, "a/one.go", "")
	write(t, env.Cwd, "a/deep/two.go", "")
	write(t, env.Cwd, "a/deep/deeper/three.go", "")
	write(t, env.Cwd, ".git/config", "")
	write(t, env.Cwd, "empty/.keep", "")
	if err := os.Remove(filepath.Join(env.Cwd, "empty/.keep")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(env.Cwd, "link")); err != nil {
		t.Fatal(err)
	}
	head := "Absolute path: " + env.Cwd + "\n"
	for _, tc := range []struct {
		name, args, want string
		isErr            bool
	}{
		{"default depth 2", `{"path":"."}`, head + "a/\n  deep/\n  one.go\nb.txt\nempty/\nlink@\n", false},
		{"depth 1", `{"path":".","depth":1}`, head + "a/\nb.txt\nempty/\nlink@\n", false},
		{"depth 4", `{"dir_path":"a","depth":4}`, "Absolute path: " + filepath.Join(env.Cwd, "a") + "\ndeep/\n  deeper/\n    three.go\n  two.go\none.go\n", false},
		{"limit", `{"path":".","limit":2}`, head + "a/\n  deep/\nMore than 2 entries found; continue with offset 3\n", false},
		{"offset", `{"path":".","offset":3,"limit":2}`, head + "  one.go\nb.txt\nMore than 4 entries found; continue with offset 5\n", false},
		{"last page", `{"path":".","offset":5}`, head + "empty/\nlink@\n", false},
		{"empty directory", `{"path":"empty"}`, "Absolute path: " + filepath.Join(env.Cwd, "empty") + "\n(empty directory)\n", false},
		{"offset past the end", `{"path":".","offset":50}`, "list_dir: offset 50 is past the end: . has 6 entries at depth 2", true},
		{"missing path", `{}`, `invalid arguments for list_dir: field "path" is required (expected string: the directory to list, "." for the working directory)`, true},
		{"depth over 10", `{"path":".","depth":11}`, `invalid arguments for list_dir: field "depth": expected a number <= 10, got 11`, true},
		{"missing dir", `{"path":"nope"}`, "list_dir: nope: no such directory", true},
		{"a file", `{"path":"b.txt"}`, "list_dir: b.txt is a file, not a directory; use read_file to read it", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, r, env, "list_dir", tc.args)
			if res.IsError != tc.isErr || res.Output != tc.want {
				t.Errorf("got %q (error %v)\nwant %q", res.Output, res.IsError, tc.want)
			}
		})
	}
}

func TestGrepFiles(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "a.go", "package a\n\nfunc A() {}\nfunc B() {}\n")
	write(t, env.Cwd, "sub/b.go", "package sub\nFUNC C() {}\r\nfunc D() {}\n")
	write(t, env.Cwd, "sub/notes.txt", "func not go\n")
	write(t, env.Cwd, ".git/config", "func hidden\n")
	write(t, env.Cwd, "bin.dat", "func\x00binary")
	write(t, env.Cwd, "huge.txt", "func big\n"+strings.Repeat("x", grepMaxFileSize))
	for _, tc := range []struct {
		name string
		args any
		want string
		err  bool
	}{
		{"include **", map[string]any{"pattern": "^func ", "include": "**/*.go"}, "a.go:3: func A() {}\na.go:4: func B() {}\nsub/b.go:3: func D() {}\n", false},
		{"base-name glob and list", map[string]any{"pattern": "func", "include": []string{"*.txt", "a.go"}}, "a.go:3: func A() {}\na.go:4: func B() {}\nsub/notes.txt:1: func not go\n", false},
		{"case insensitive, CR stripped", map[string]any{"pattern": "^func c", "case_insensitive": true}, "sub/b.go:2: FUNC C() {}\n", false},
		{"path narrows and paths are relative to it", map[string]any{"pattern": "func", "path": "sub"}, "b.go:3: func D() {}\nnotes.txt:1: func not go\n", false},
		{"a single file", map[string]any{"pattern": "B", "path": "a.go"}, "a.go:4: func B() {}\n", false},
		{"limit cuts sorted matches", map[string]any{"pattern": "func", "limit": 2}, "a.go:3: func A() {}\na.go:4: func B() {}\n… 2 more matches not shown (raise limit or narrow the pattern, path or include)\n", false},
		{"no matches", map[string]any{"pattern": "zzz"}, "No matches found.", false},
		{"invalid regex", map[string]any{"pattern": "a(b"}, "grep_files: invalid pattern \"a(b\": error parsing regexp: missing closing ): `a(b`", true},
		{"invalid glob", map[string]any{"pattern": "a", "include": "[x"}, `grep_files: include "[x" is not a valid glob`, true},
		{"missing path", map[string]any{"pattern": "a", "path": "nope"}, "grep_files: nope: no such file or directory", true},
		{"limit above max", map[string]any{"pattern": "a", "limit": 5000}, `invalid arguments for grep_files: field "limit": expected a number <= 2000, got 5000`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, r, env, "grep_files", tc.args)
			if res.IsError != tc.err || res.Output != tc.want {
				t.Errorf("got %q (error %v)\nwant %q", res.Output, res.IsError, tc.want)
			}
		})
	}
}

// TestGrepFilesManyFiles exercises the worker pool: the result must be
// complete and in path order whatever order the workers finish in.
func TestGrepFilesManyFiles(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	var want strings.Builder
	for i := range 300 {
		name := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		write(t, env.Cwd, name, fmt.Sprintf("noise\nneedle %d\nnoise\nneedle again\n", i))
	}
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("d%d/f%03d.txt", i%7, i))
	}
	slices.Sort(names)
	for _, n := range names {
		var i int
		fmt.Sscanf(n[strings.Index(n, "/f")+2:], "%d", &i)
		fmt.Fprintf(&want, "%s:2: needle %d\n%s:4: needle again\n", n, i, n)
	}
	res := run(t, r, env, "grep_files", map[string]any{"pattern": "needle", "limit": 2000})
	if res.IsError || res.Output != want.String() {
		t.Fatalf("got %d bytes, want %d", len(res.Output), want.Len())
	}
	res = run(t, r, env, "grep_files", map[string]any{"pattern": "needle", "limit": 3})
	first := strings.SplitN(want.String(), "\n", 4)
	if exp := strings.Join(first[:3], "\n") + "\n… 597 more matches not shown (raise limit or narrow the pattern, path or include)\n"; res.Output != exp {
		t.Errorf("limited: %q\nwant %q", res.Output, exp)
	}
}

func TestGrepFilesCancelled(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	for i := range 50 {
		write(t, env.Cwd, fmt.Sprintf("f%d.txt", i), "needle\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Run(ctx, env, "grep_files", json.RawMessage(`{"pattern":"needle"}`))
	if !res.IsError || res.Output != "grep_files: interrupted" {
		t.Errorf("cancelled grep: %q", res.Output)
	}
}
