package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

const patchSrc = "package x\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"

func TestApplyPatch(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		files       map[string]string // contents afterwards; "<missing>" = absent
		wantOut     string            // exact output on success
		wantErr     []string          // substrings of the error
		summary     string
	}{
		{name: "add in a new directory",
			patch:   "*** Begin Patch\n*** Add File: new/dir/hello.txt\n+hello\n+world\n*** End Patch",
			files:   map[string]string{"new/dir/hello.txt": "hello\nworld\n"},
			wantOut: "Success. Updated the following files:\nA new/dir/hello.txt",
			summary: "patched 1 file (+2 -0)"},
		{name: "update with two hunks located by @@ headers",
			patch:   "*** Begin Patch\n*** Update File: x.go\n@@ func A() int {\n-\treturn 1\n+\treturn 10\n@@ func B() int {\n-\treturn 1\n+\treturn 20\n*** End Patch",
			files:   map[string]string{"x.go": "package x\n\nfunc A() int {\n\treturn 10\n}\n\nfunc B() int {\n\treturn 20\n}\n"},
			wantOut: "Success. Updated the following files:\nM x.go",
			summary: "patched 1 file (+2 -2)"},
		{name: "@@ header alone positions the hunk (second identical block)",
			patch: "*** Begin Patch\n*** Update File: x.go\n@@ func B() int {\n-\treturn 1\n+\treturn 2\n*** End Patch",
			files: map[string]string{"x.go": strings.Replace(patchSrc, "B() int {\n\treturn 1", "B() int {\n\treturn 2", 1)}},
		{name: "without a header the first match wins",
			patch: "*** Begin Patch\n*** Update File: x.go\n@@\n-\treturn 1\n+\treturn 2\n*** End Patch",
			files: map[string]string{"x.go": strings.Replace(patchSrc, "return 1", "return 2", 1)}},
		{name: "hunks are searched after the previous one",
			patch: "*** Begin Patch\n*** Update File: x.go\n@@\n-\treturn 1\n+\treturn 2\n@@\n-\treturn 1\n+\treturn 3\n*** End Patch",
			files: map[string]string{"x.go": strings.Replace(strings.Replace(patchSrc, "return 1", "return 2", 1), "return 1", "return 3", 1)}},
		{name: "context matches ignoring trailing whitespace and keeps the file's text",
			patch: "*** Begin Patch\n*** Update File: ws.txt\n@@\n alpha   \n-beta\n+BETA\n gamma\n*** End Patch",
			files: map[string]string{"ws.txt": "alpha \t\nBETA\ngamma\n"}},
		{name: "context matches ignoring indentation",
			patch: "*** Begin Patch\n*** Update File: x.go\n@@\n func A() int {\n-return 1\n+\treturn 5\n }\n*** End Patch",
			files: map[string]string{"x.go": strings.Replace(patchSrc, "return 1", "return 5", 1)}},
		{name: "typographic punctuation matches ASCII",
			patch: "*** Begin Patch\n*** Update File: q.txt\n@@\n-say \u201chi\u201d \u2014 ok\n+say hello\n*** End Patch",
			files: map[string]string{"q.txt": "say hello\n"}},
		{name: "End of File anchors the hunk at the end",
			patch: "*** Begin Patch\n*** Update File: x.go\n@@\n }\n+\n+func C() {}\n*** End of File\n*** End Patch",
			files: map[string]string{"x.go": patchSrc + "\nfunc C() {}\n"}},
		{name: "pure insertion after an @@ header",
			patch: "*** Begin Patch\n*** Update File: x.go\n@@ package x\n+\n+import \"fmt\"\n*** End Patch",
			files: map[string]string{"x.go": "package x\n\nimport \"fmt\"\n" + strings.TrimPrefix(patchSrc, "package x\n")}},
		{name: "delete",
			patch:   "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch",
			files:   map[string]string{"gone.txt": "<missing>"},
			wantOut: "Success. Updated the following files:\nD gone.txt",
			summary: "patched 1 file (+0 -1)"},
		{name: "move with an edit",
			patch:   "*** Begin Patch\n*** Update File: x.go\n*** Move to: y/z.go\n@@\n-package x\n+package z\n*** End Patch",
			files:   map[string]string{"x.go": "<missing>", "y/z.go": strings.Replace(patchSrc, "package x", "package z", 1)},
			wantOut: "Success. Updated the following files:\nM x.go -> y/z.go"},
		{name: "several files at once",
			patch:   "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: ws.txt\n@@\n-beta\n+b\n*** Delete File: gone.txt\n*** End Patch",
			files:   map[string]string{"a.txt": "a\n", "ws.txt": "alpha \t\nb\ngamma\n", "gone.txt": "<missing>"},
			wantOut: "Success. Updated the following files:\nA a.txt\nM ws.txt\nD gone.txt",
			summary: "patched 3 files (+2 -2)"},
		{name: "a later section sees an earlier one",
			patch: "*** Begin Patch\n*** Add File: n.txt\n+one\n*** Update File: n.txt\n@@\n-one\n+two\n*** End Patch",
			files: map[string]string{"n.txt": "two\n"}},
		{name: "CRLF patch",
			patch: "*** Begin Patch\r\n*** Update File: ws.txt\r\n@@\r\n-beta\r\n+crlf\r\n*** End Patch\r\n",
			files: map[string]string{"ws.txt": "alpha \t\ncrlf\ngamma\n"}},
		{name: "CRLF file keeps its line ends",
			patch: "*** Begin Patch\n*** Update File: dos.txt\n@@\n one\n-two\n+2\n*** End Patch",
			files: map[string]string{"dos.txt": "one\r\n2\r\nthree\r\n"}},
		{name: "heredoc wrapper",
			patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+heredoc\n*** End Patch\nEOF\n",
			files: map[string]string{"h.txt": "heredoc\n"}},
		{name: "failing second hunk leaves every file untouched",
			patch:   "*** Begin Patch\n*** Add File: extra.txt\n+x\n*** Delete File: gone.txt\n*** Update File: x.go\n@@\n-\treturn 1\n+\treturn 3\n@@\n-\treturn 999\n+\treturn 4\n*** End Patch",
			files:   map[string]string{"x.go": patchSrc, "extra.txt": "<missing>", "gone.txt": "bye\n"},
			wantErr: []string{"x.go: hunk 2 of 2 (patch line 9, starting \"return 999\") does not apply", "no files were changed"}},
		{name: "unknown @@ header",
			patch:   "*** Begin Patch\n*** Update File: x.go\n@@ func Z() {\n-\treturn 1\n+\treturn 3\n*** End Patch",
			files:   map[string]string{"x.go": patchSrc},
			wantErr: []string{"x.go: hunk 1 of 1", `its @@ line "func Z() {" was not found`}},
		{name: "add on an existing file",
			patch:   "*** Begin Patch\n*** Add File: x.go\n+x\n*** End Patch",
			files:   map[string]string{"x.go": patchSrc},
			wantErr: []string{"x.go: cannot add: the file already exists"}},
		{name: "update of a missing file",
			patch:   "*** Begin Patch\n*** Update File: nope.go\n@@\n-a\n+b\n*** End Patch",
			wantErr: []string{"nope.go: cannot update: no such file"}},
		{name: "delete of a missing file",
			patch:   "*** Begin Patch\n*** Delete File: nope.go\n*** End Patch",
			wantErr: []string{"nope.go: cannot delete: no such file"}},
		{name: "missing Begin Patch",
			patch:   "*** Add File: a\n+x\n*** End Patch",
			wantErr: []string{"invalid patch at line 1: the first line must be '*** Begin Patch'"}},
		{name: "bad hunk line",
			patch:   "*** Begin Patch\n*** Update File: x.go\n@@\n?what\n*** End Patch",
			wantErr: []string{"invalid patch at line 4: hunk lines must start with ' ', '-' or '+'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := coreRegistry(t)
			env := testEnv(t)
			write(t, env.Cwd, "x.go", patchSrc)
			write(t, env.Cwd, "gone.txt", "bye\n")
			write(t, env.Cwd, "ws.txt", "alpha \t\nbeta\ngamma\n")
			write(t, env.Cwd, "q.txt", "say \"hi\" - ok\n")
			write(t, env.Cwd, "dos.txt", "one\r\ntwo\r\nthree\r\n")
			res := run(t, r, env, "apply_patch", map[string]any{"input": tc.patch})
			if len(tc.wantErr) > 0 {
				if !res.IsError {
					t.Fatalf("want an error, got %q", res.Output)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(res.Output, w) {
						t.Errorf("error %q lacks %q", res.Output, w)
					}
				}
			} else {
				if res.IsError || !strings.HasPrefix(res.Output, "Success. Updated the following files:\n") {
					t.Fatalf("unexpected: %q", res.Output)
				}
				if tc.wantOut != "" && res.Output != tc.wantOut {
					t.Errorf("output %q, want %q", res.Output, tc.wantOut)
				}
				if tc.summary != "" && res.Summary != tc.summary {
					t.Errorf("summary %q, want %q", res.Summary, tc.summary)
				}
			}
			for name, want := range tc.files {
				if got := read(t, env.Cwd, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			assertNoTempFiles(t, env.Cwd)
		})
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".grove-patch-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// approvalFixture is a workspace-write thread whose cwd, "outside" dir and
// temp dir are unrelated directories.
type approvalFixture struct {
	env     *Env
	outside string
	asked   []protocol.ApprovalRequest
}

func newApprovalFixture(t *testing.T, policy protocol.ApprovalPolicy, decision protocol.ReviewDecision) *approvalFixture {
	t.Helper()
	fx := &approvalFixture{outside: t.TempDir()}
	fx.env = &Env{Cwd: t.TempDir(), CallID: "call-1", Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: policy}
	t.Setenv("TMPDIR", t.TempDir()) // so the outside dir is not under the temp root
	fx.env.Approve = func(_ context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		fx.asked = append(fx.asked, req)
		return decision, nil
	}
	return fx
}

func TestApplyPatchSandboxAndApprovals(t *testing.T) {
	r := coreRegistry(t)
	addPatch := func(path string) string { return "*** Begin Patch\n*** Add File: " + path + "\n+x\n*** End Patch" }
	for _, tc := range []struct {
		name     string
		policy   protocol.ApprovalPolicy
		decision protocol.ReviewDecision
		mode     protocol.SandboxMode
		noAsker  bool
		outside  bool   // the patch targets the outside dir
		viaLink  bool   // … through a symlink inside cwd
		extraRW  bool   // the outside dir is an extra writable root
		asks     int    // approval requests expected
		written  bool   // the file exists afterwards
		wantErr  string // substring of the error
		abort    bool
	}{
		{name: "inside roots needs no approval", policy: protocol.ApprovalOnRequest, decision: protocol.DecisionDenied, written: true},
		{name: "outside roots asks; denied", policy: protocol.ApprovalOnRequest, decision: protocol.DecisionDenied, outside: true, asks: 1, wantErr: "patch rejected by user"},
		{name: "outside roots asks; approved", policy: protocol.ApprovalOnRequest, decision: protocol.DecisionApproved, outside: true, asks: 1, written: true},
		{name: "on-failure asks too; approved for session", policy: protocol.ApprovalOnFailure, decision: protocol.DecisionApprovedForSession, outside: true, asks: 1, written: true},
		{name: "outside roots with never is refused", policy: protocol.ApprovalNever, decision: protocol.DecisionApproved, outside: true, wantErr: "is outside the writable roots of this sandbox (workspace-write: "},
		{name: "outside roots with no one to ask is refused", policy: protocol.ApprovalOnRequest, noAsker: true, outside: true, wantErr: "no one can approve"},
		{name: "a symlink out of cwd counts as outside", policy: protocol.ApprovalNever, outside: true, viaLink: true, wantErr: "is outside the writable roots"},
		{name: "extra writable roots are inside", policy: protocol.ApprovalNever, outside: true, extraRW: true, written: true},
		{name: "untrusted always asks; approved", policy: protocol.ApprovalUntrusted, decision: protocol.DecisionApproved, asks: 1, written: true},
		{name: "untrusted; abort ends the turn", policy: protocol.ApprovalUntrusted, decision: protocol.DecisionAbort, asks: 1, wantErr: "patch rejected by user", abort: true},
		{name: "danger-full-access writes anywhere", policy: protocol.ApprovalNever, mode: protocol.SandboxDangerFullAccess, outside: true, written: true},
		{name: "read-only refuses with never", policy: protocol.ApprovalNever, mode: protocol.SandboxReadOnly, wantErr: "the sandbox is read-only"},
		{name: "read-only asks on-request; approved", policy: protocol.ApprovalOnRequest, decision: protocol.DecisionApproved, mode: protocol.SandboxReadOnly, asks: 1, written: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newApprovalFixture(t, tc.policy, tc.decision)
			if tc.mode != "" {
				fx.env.Sandbox.Mode = tc.mode
			}
			if tc.noAsker {
				fx.env.Approve = nil
			}
			if tc.extraRW {
				fx.env.Sandbox.WritableRoots = []string{fx.outside}
			}
			target := filepath.Join(fx.env.Cwd, "in.txt")
			patchPath := "in.txt"
			if tc.outside {
				target = filepath.Join(fx.outside, "o.txt")
				patchPath = target
			}
			if tc.viaLink {
				if err := os.Symlink(fx.outside, filepath.Join(fx.env.Cwd, "link")); err != nil {
					t.Fatal(err)
				}
				patchPath = "link/o.txt"
			}
			res := run(t, r, fx.env, "apply_patch", map[string]any{"input": addPatch(patchPath)})
			if len(fx.asked) != tc.asks {
				t.Errorf("asked %d times, want %d", len(fx.asked), tc.asks)
			}
			for _, req := range fx.asked {
				if req.Kind != protocol.ApprovalPatch || req.Cwd != fx.env.Cwd || req.CallID != "call-1" || !strings.Contains(req.Patch, "*** Add File: ") || len(req.Files) != 1 || req.Reason == "" {
					t.Errorf("bad request %+v", req)
				}
			}
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Output, tc.wantErr) {
					t.Errorf("output %q, want error with %q", res.Output, tc.wantErr)
				}
			} else if res.IsError {
				t.Errorf("unexpected error %q", res.Output)
			}
			if res.Abort != tc.abort {
				t.Errorf("Abort = %v", res.Abort)
			}
			_, err := os.Stat(target)
			if written := err == nil; written != tc.written {
				t.Errorf("written = %v, want %v (%q)", written, tc.written, res.Output)
			}
		})
	}
}

func TestApplyPatchRefusalNamesThePathAndRoots(t *testing.T) {
	fx := newApprovalFixture(t, protocol.ApprovalNever, protocol.DecisionApproved)
	target := filepath.Join(fx.outside, "o.txt")
	res := run(t, coreRegistry(t), fx.env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: " + target + "\n+x\n*** End Patch"})
	want := target + " is outside the writable roots of this sandbox (workspace-write: " + fx.env.Cwd
	if !res.IsError || !strings.Contains(res.Output, want) {
		t.Errorf("output %q lacks %q", res.Output, want)
	}
}

func TestApplyPatchApprovalInterrupted(t *testing.T) {
	env := testEnv(t)
	env.ApprovalPolicy = protocol.ApprovalUntrusted
	ctx, cancel := context.WithCancel(context.Background())
	env.Approve = func(ctx context.Context, _ protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		cancel()
		<-ctx.Done()
		return "", ctx.Err()
	}
	res := coreRegistry(t).Run(ctx, env, "apply_patch", []byte(`{"input":"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"}`))
	if !res.IsError || !res.Abort || read(t, env.Cwd, "a.txt") != "<missing>" {
		t.Errorf("interrupted approval: %+v", res)
	}
	env.Approve = func(context.Context, protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		return "", errors.New("approval queue closed")
	}
	res = coreRegistry(t).Run(context.Background(), env, "apply_patch", []byte(`{"input":"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"}`))
	if !res.IsError || res.Abort || !strings.Contains(res.Output, "approval queue closed") {
		t.Errorf("failed approval: %+v", res)
	}
}

// FuzzParsePatch feeds arbitrary text to apply_patch in a workspace-write
// sandbox that may ask no one: it must never panic and never change
// anything outside the working directory, whatever paths, symlinks or
// hunks the input holds.
func FuzzParsePatch(f *testing.F) {
	for _, seed := range []string{
		"*** Begin Patch\n*** Add File: a2.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n@@ a\n-b\n+B\n*** End of File\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/c.txt\n@@\n a\n-b\n+bb\n c\n*** End Patch",
		"*** Begin Patch\n*** Delete File: sub/b.txt\n*** End Patch",
		"*** Begin Patch\n*** Delete File: ../outside.txt\n*** End Patch",
		"*** Begin Patch\n*** Update File: ../outside.txt\n@@\n-keep\n+lost\n*** End Patch",
		"*** Begin Patch\n*** Add File: ../new.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Add File: sub/../../new.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../moved.txt\n@@\n-a\n+z\n*** End Patch",
		"*** Begin Patch\n*** Add File: up/evil.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: up/outside.txt\n@@\n-keep\n+lost\n*** End Patch",
		"apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Add File: a3.txt\r\n+x\r\n*** End Patch\r\nEOF\r\n",
		"*** Begin Patch\n*** Update File: a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n@@\n\n\n*** End Patch",
	} {
		f.Add(seed)
	}
	base := f.TempDir()
	f.Setenv("TMPDIR", filepath.Join(base, "tmp")) // the temp root must not contain the cases
	if err := os.Mkdir(filepath.Join(base, "tmp"), 0o755); err != nil {
		f.Fatal(err)
	}
	r := coreRegistry(f)
	f.Fuzz(func(t *testing.T, input string) {
		dir, err := os.MkdirTemp(base, "case")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		work := filepath.Join(dir, "work")
		write(t, dir, "outside.txt", "keep\n")
		write(t, work, "a.txt", "a\nb\nc\n")
		write(t, work, "sub/b.txt", "b\n")
		if err := os.Symlink(dir, filepath.Join(work, "up")); err != nil {
			t.Fatal(err)
		}
		env := &Env{Cwd: work, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalNever}
		run(t, r, env, "apply_patch", map[string]any{"input": input})
		// Outside work only outside.txt may exist, unchanged.
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "work" && e.Name() != "outside.txt" {
				t.Fatalf("patch %q created %s outside the working directory", input, e.Name())
			}
		}
		if got := read(t, dir, "outside.txt"); got != "keep\n" {
			t.Fatalf("patch %q changed a file outside the working directory: %q", input, got)
		}
	})
}

// Symlinks that stay inside the writable roots keep working: a working
// directory reached through a link, and a directory link inside it.
func TestApplyPatchThroughInsideSymlinks(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	base := t.TempDir()
	real := filepath.Join(base, "real")
	write(t, real, "lib/src/a.txt", "one\n")
	if err := os.Symlink("real", filepath.Join(base, "ws")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("lib/src", filepath.Join(real, "src")); err != nil {
		t.Fatal(err)
	}
	env := &Env{Cwd: filepath.Join(base, "ws"), Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalNever}
	res := run(t, coreRegistry(t), env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: src/a.txt\n@@\n-one\n+two\n*** Add File: src/new/b.txt\n+b\n*** End Patch"})
	if res.IsError {
		t.Fatalf("patch through inside links failed: %s", res.Output)
	}
	if got := read(t, real, "lib/src/a.txt"); got != "two\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := read(t, real, "lib/src/new/b.txt"); got != "b\n" {
		t.Errorf("b.txt = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(real, "src")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("src link replaced: %v %v", fi, err)
	}
}
