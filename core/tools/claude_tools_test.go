package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func claudeRegistry(t testing.TB) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := RegisterClaude(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestClaudeReadFormats: Claude Code's numbering, its empty-file and
// short-file reminders, long lines cut at 2000 characters, offset/limit.
func TestClaudeReadFormats(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	write(t, env.Cwd, "a.txt", "one\ntwo\nthree\n")
	write(t, env.Cwd, "empty.txt", "")
	write(t, env.Cwd, "long.txt", strings.Repeat("x", 2500)+"\n")
	p := func(n string) string { return filepath.Join(env.Cwd, n) }
	for _, c := range []struct {
		args any
		want string
	}{
		{map[string]any{"file_path": p("a.txt")}, "     1→one\n     2→two\n     3→three"},
		{map[string]any{"file_path": p("a.txt"), "offset": 2, "limit": 1}, "     2→two"},
		{map[string]any{"file_path": p("a.txt"), "offset": 9}, "<system-reminder>Warning: the file exists but is shorter than the provided offset (9). The file has 3 lines.</system-reminder>"},
		{map[string]any{"file_path": p("empty.txt")}, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
		{map[string]any{"file_path": p("long.txt")}, "     1→" + strings.Repeat("x", 2000)},
		{map[string]any{"file_path": p("missing.txt")}, "File does not exist."},
	} {
		if got := run(t, r, env, "Read", c.args).Output; got != c.want {
			t.Errorf("Read %v = %q, want %q", c.args, got, c.want)
		}
	}
	img := p("dot.png")
	if err := os.WriteFile(img, []byte("\x89PNG\r\n\x1a\nfake"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, r, env, "Read", map[string]any{"file_path": img})
	if len(res.Images) != 1 || !strings.HasPrefix(res.Images[0], "data:image/png;base64,") {
		t.Errorf("an image came back as %+v", res)
	}
}

// TestClaudeEditRules: read before edit, a non-unique old_string refused
// with the file left alone, replace_all, a file changed since it was read
// refused, CRLF files keep their endings.
func TestClaudeEditRules(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	f := filepath.Join(env.Cwd, "f.txt")
	write(t, env.Cwd, "f.txt", "a\nb\na\n")
	edit := func(old, new string, all bool) Result {
		return run(t, r, env, "Edit", map[string]any{"file_path": f, "old_string": old, "new_string": new, "replace_all": all})
	}
	if res := edit("b", "B", false); res.Output != claudeNotRead || !res.IsError {
		t.Fatalf("edit before Read: %+v", res)
	}
	run(t, r, env, "Read", map[string]any{"file_path": f})
	if res := edit("a", "A", false); !strings.HasPrefix(res.Output, "Found 2 matches of the string to replace, but replace_all is false.") || read(t, env.Cwd, "f.txt") != "a\nb\na\n" {
		t.Fatalf("ambiguous edit: %+v; file %q", res, read(t, env.Cwd, "f.txt"))
	}
	if res := edit("zzz", "y", false); res.Output != "String to replace not found in file.\nString: zzz" {
		t.Errorf("missing string: %q", res.Output)
	}
	if res := edit("a", "A", true); res.IsError || res.Output != "The file "+f+" has been updated. All occurrences of 'a' were successfully replaced with 'A'." || read(t, env.Cwd, "f.txt") != "A\nb\nA\n" {
		t.Fatalf("replace_all: %+v; file %q", res, read(t, env.Cwd, "f.txt"))
	}
	// Someone else changes the file: the next edit must Read again.
	future := time.Now().Add(time.Hour)
	write(t, env.Cwd, "f.txt", "A\nb\nA\nmore\n")
	if err := os.Chtimes(f, future, future); err != nil {
		t.Fatal(err)
	}
	if res := edit("b", "B", false); res.Output != claudeModified {
		t.Fatalf("edit of a changed file: %+v", res)
	}
	write(t, env.Cwd, "crlf.txt", "x\r\ny\r\n")
	c := filepath.Join(env.Cwd, "crlf.txt")
	run(t, r, env, "Read", map[string]any{"file_path": c})
	if res := run(t, r, env, "Edit", map[string]any{"file_path": c, "old_string": "x\ny", "new_string": "x\nz"}); res.IsError || read(t, env.Cwd, "crlf.txt") != "x\r\nz\r\n" {
		t.Fatalf("CRLF edit: %+v; file %q", res, read(t, env.Cwd, "crlf.txt"))
	}
}

// TestClaudeWriteAndMultiEdit: a new file, an overwrite after Read, a
// MultiEdit whose second edit fails changes nothing.
func TestClaudeWriteAndMultiEdit(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	f := filepath.Join(env.Cwd, "dir", "new.go")
	if res := run(t, r, env, "Write", map[string]any{"file_path": f, "content": "package x\n"}); res.Output != "File created successfully at: "+f {
		t.Fatalf("Write new: %+v", res)
	}
	if res := run(t, r, env, "Write", map[string]any{"file_path": f, "content": "package y\n"}); res.IsError || !strings.HasSuffix(res.Output, "     1→package y") {
		t.Fatalf("overwrite of a file this thread wrote: %+v", res)
	}
	other := &Env{ThreadID: "other", Cwd: env.Cwd, Sandbox: env.Sandbox}
	if res := run(t, r, other, "Write", map[string]any{"file_path": f, "content": "x"}); res.Output != claudeNotRead {
		t.Fatalf("another agent overwrote a file it never read: %+v", res)
	}
	res := run(t, r, env, "MultiEdit", map[string]any{"file_path": f, "edits": []map[string]any{{"old_string": "package", "new_string": "pkg"}, {"old_string": "nope", "new_string": "x"}}})
	if !res.IsError || read(t, env.Cwd, "dir/new.go") != "package y\n" {
		t.Fatalf("failed MultiEdit: %+v; file %q", res, read(t, env.Cwd, "dir/new.go"))
	}
	res = run(t, r, env, "MultiEdit", map[string]any{"file_path": f, "edits": []map[string]any{{"old_string": "package", "new_string": "pkg"}, {"old_string": "y", "new_string": "z"}}})
	if res.Output != "Applied 2 edits to "+f+":\n1. Replaced \"package\" with \"pkg\"\n2. Replaced \"y\" with \"z\"" || read(t, env.Cwd, "dir/new.go") != "pkg z\n" {
		t.Fatalf("MultiEdit: %+v; file %q", res, read(t, env.Cwd, "dir/new.go"))
	}
}

// TestClaudeWritesStayInTheSandbox: under workspace-write a Write outside
// the writable roots, directly or through a symlink planted inside them,
// needs approval; with no one to ask nothing is written.
func TestClaudeWritesStayInTheSandbox(t *testing.T) {
	r := claudeRegistry(t)
	work, outside := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", t.TempDir()) // so outside is not under the temp root
	env := &Env{ThreadID: "t", Cwd: work, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalOnRequest}
	if err := os.Symlink(outside, filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(outside, "x.txt"), filepath.Join(work, "link", "y.txt")} {
		res := run(t, r, env, "Write", map[string]any{"file_path": p, "content": "pwned"})
		if !res.IsError {
			t.Errorf("Write %s outside the roots: %+v", p, res)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("files written outside the sandbox: %v", ents)
	}
}

// TestClaudeBashForgedDirectoryStaysInTheSandbox: a command that prints a
// fake directory marker cannot move the next command outside the
// writable roots (the marker is random, and the directory is checked).
func TestClaudeBashForgedDirectoryStaysInTheSandbox(t *testing.T) {
	b := newClaudeBash()
	env := &Env{ThreadID: "t", Cwd: t.TempDir(), Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}}
	b.dirs["t"] = "/etc"
	if got := b.dir(env); got != env.Cwd {
		t.Fatalf("a directory outside the roots was kept: %s", got)
	}
	out, dir := splitCwdMarker("hello\n__grove_cwd_fake__/etc", cwdMarker())
	if dir != "" || !strings.Contains(out, "/etc") {
		t.Fatalf("a forged marker was taken: %q %q", out, dir)
	}
}

// TestClaudeGrepModes: ripgrep's content format with context and group
// separators, files_with_matches, count, head_limit, type, hidden files.
func TestClaudeGrepModes(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	write(t, env.Cwd, "a.go", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	write(t, env.Cwd, "b.txt", "two\n")
	write(t, env.Cwd, ".hidden/c.go", "two\n")
	a := filepath.Join(env.Cwd, "a.go")
	got := run(t, r, env, "Grep", map[string]any{"pattern": "two|six", "path": a, "output_mode": "content", "-C": 1}).Output
	if want := "1-one\n2:two\n3-three\n--\n5-five\n6:six\n7-seven"; got != want {
		t.Errorf("content in one file:\n%s\nwant:\n%s", got, want)
	}
	got = run(t, r, env, "Grep", map[string]any{"pattern": "two", "type": "go"}).Output
	if got != "Found 1 file\n"+a {
		t.Errorf("files_with_matches, type go (hidden skipped): %q", got)
	}
	got = run(t, r, env, "Grep", map[string]any{"pattern": "t", "output_mode": "count", "glob": "*.go"}).Output
	if got != a+":2\n\nFound 2 total occurrences across 1 file." {
		t.Errorf("count: %q", got)
	}
	got = run(t, r, env, "Grep", map[string]any{"pattern": "o", "path": a, "output_mode": "content", "head_limit": 2}).Output
	if got != "1:one\n2:two\n\n[Showing results with pagination = limit: 2, offset: 0]" {
		t.Errorf("head_limit: %q", got)
	}
	if got := run(t, r, env, "Grep", map[string]any{"pattern": "two", "type": "cobol"}); !got.IsError {
		t.Errorf("unknown type: %+v", got)
	}
	if got := run(t, r, env, "Grep", map[string]any{"pattern": "zzz"}).Output; got != "No files found" {
		t.Errorf("no match: %q", got)
	}
}

// TestClaudeAskUserQuestionUsesTheQuestionCard: the questions reach the
// same AskUser as request_user_input's (its question card), every one
// open to a free-form answer; the answer is worded as Claude Code's.
func TestClaudeAskUserQuestionUsesTheQuestionCard(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	var asked []protocol.UserInputQuestion
	env.AskUser = func(_ context.Context, qs []protocol.UserInputQuestion) (*protocol.UserInputResponse, error) {
		asked = qs
		return &protocol.UserInputResponse{Answers: map[string]protocol.UserInputAnswer{"q1": {Answers: []string{"PostgreSQL (Recommended)"}}}}, nil
	}
	res := run(t, r, env, "AskUserQuestion", `{"questions":[{"question":"Which database should we use?","header":"Database","multiSelect":false,"options":[{"label":"PostgreSQL (Recommended)","description":"Robust relational database"},{"label":"SQLite","description":"Lightweight file-based database"}]}]}`)
	if res.IsError || res.Output != `User has answered your questions: "Which database should we use?"="PostgreSQL (Recommended)". You can now continue with the user's answers in mind.` {
		t.Fatalf("answer: %+v", res)
	}
	if len(asked) != 1 || !asked[0].IsOther || len(asked[0].Options) != 2 || asked[0].Header != "Database" {
		t.Fatalf("asked %+v", asked)
	}
	env.AskUser = nil
	if res := run(t, r, env, "AskUserQuestion", `{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`); !res.IsError || !strings.Contains(res.Output, "no one can answer") {
		t.Fatalf("headless: %+v", res)
	}
}

// TestClaudeApprovedWriteOutsideWritesOnlyWhatWasApproved: a Write outside the writable roots
// that the user approves lands; one whose directory is swapped for a symlink while the
// question is open is refused (the approval carries the resolved, pinned path).
func TestClaudeApprovedWriteOutsideWritesOnlyWhatWasApproved(t *testing.T) {
	r := claudeRegistry(t)
	work, outside, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", t.TempDir()) // so outside is not under the temp root
	dir := filepath.Join(outside, "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := &Env{ThreadID: "t", Cwd: work, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalOnRequest}
	swap := false
	env.Approve = func(context.Context, protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		if swap {
			if err := os.Rename(dir, dir+".orig"); err != nil {
				return protocol.DecisionAbort, err
			}
			if err := os.Symlink(elsewhere, dir); err != nil {
				return protocol.DecisionAbort, err
			}
		}
		return protocol.DecisionApproved, nil
	}
	target := filepath.Join(dir, "ok.txt")
	if res := run(t, r, env, "Write", map[string]any{"file_path": target, "content": "approved\n"}); res.IsError {
		t.Fatalf("approved Write outside the roots: %+v", res)
	}
	if b, _ := os.ReadFile(target); string(b) != "approved\n" {
		t.Fatalf("approved file holds %q", b)
	}
	swap = true
	res := run(t, r, env, "Write", map[string]any{"file_path": filepath.Join(dir, "swapped.txt"), "content": "pwned"})
	if !res.IsError {
		t.Errorf("a Write whose directory was swapped while asking went through: %+v", res)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Fatalf("written through the swapped symlink: %v", ents)
	}
}
