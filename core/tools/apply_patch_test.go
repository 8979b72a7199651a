package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

func TestApplyPatchTable(t *testing.T) {
	const src = "package x\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"
	for _, tc := range []struct {
		name, patch string
		files       map[string]string // expected contents after ("<missing>" = deleted)
		wantErr     string
	}{
		{name: "add", patch: "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** End Patch", files: map[string]string{"new.txt": "hello\nworld\n"}},
		{name: "two hunks", patch: "*** Begin Patch\n*** Update File: x.go\n@@ func A() int {\n-\treturn 1\n+\treturn 10\n@@ func B() int {\n-\treturn 2\n+\treturn 20\n*** End Patch",
			files: map[string]string{"x.go": strings.Replace(strings.Replace(src, "return 1\n", "return 10\n", 1), "return 2\n", "return 20\n", 1)}},
		{name: "trailing whitespace fuzz", patch: "*** Begin Patch\n*** Update File: x.go\n@@\n func A() int {   \n-\treturn 1\n+\treturn 11\n }\n*** End Patch",
			files: map[string]string{"x.go": strings.Replace(src, "return 1\n", "return 11\n", 1)}},
		{name: "end of file", patch: "*** Begin Patch\n*** Update File: x.go\n@@\n+\n+func C() {}\n*** End of File\n*** End Patch", files: map[string]string{"x.go": src + "\nfunc C() {}\n"}},
		{name: "delete and move", patch: "*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: x.go\n*** Move to: y/z.go\n@@\n-package x\n+package z\n*** End Patch",
			files: map[string]string{"gone.txt": "<missing>", "x.go": "<missing>", "y/z.go": strings.Replace(src, "package x", "package z", 1)}},
		{name: "crlf and heredoc", patch: "bash <<'EOF'\r\n*** Begin Patch\r\n*** Add File: c.txt\r\n+crlf\r\n*** End Patch\r\nEOF\r\n", files: map[string]string{"c.txt": "crlf\n"}},
		{name: "second hunk fails: nothing changes", patch: "*** Begin Patch\n*** Add File: extra.txt\n+x\n*** Update File: x.go\n@@\n-\treturn 1\n+\treturn 3\n@@\n-\treturn 999\n+\treturn 4\n*** End Patch",
			files: map[string]string{"x.go": src, "extra.txt": "<missing>"}, wantErr: "hunk 2"},
		{name: "add existing", patch: "*** Begin Patch\n*** Add File: x.go\n+x\n*** End Patch", files: map[string]string{"x.go": src}, wantErr: "already exists"},
		{name: "update missing", patch: "*** Begin Patch\n*** Update File: nope.go\n@@\n-a\n+b\n*** End Patch", wantErr: "no such file"},
		{name: "no begin", patch: "*** Add File: a\n+x\n*** End Patch", wantErr: "Begin Patch"},
		{name: "bad hunk line", patch: "*** Begin Patch\n*** Update File: x.go\n@@\n?what\n*** End Patch", wantErr: "line 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := coreRegistry(t)
			env := testEnv(t)
			write(t, env.Cwd, "x.go", src)
			write(t, env.Cwd, "gone.txt", "bye\n")
			res := run(t, r, env, "apply_patch", map[string]any{"input": tc.patch})
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Output, tc.wantErr) {
					t.Fatalf("want error %q, got %q", tc.wantErr, res.Output)
				}
			} else if res.IsError || !strings.HasPrefix(res.Output, "Success.") {
				t.Fatalf("unexpected: %q", res.Output)
			}
			for name, want := range tc.files {
				if got := read(t, env.Cwd, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestApplyPatchSandboxAndApprovals(t *testing.T) {
	outsideDir := t.TempDir()
	outside := filepath.Join(outsideDir, "o.txt")
	p := "*** Begin Patch\n*** Add File: " + outside + "\n+x\n*** End Patch"
	inside := "*** Begin Patch\n*** Add File: in.txt\n+x\n*** End Patch"
	r := coreRegistry(t)
	mk := func(policy protocol.ApprovalPolicy, decision protocol.ReviewDecision, asked *int) *Env {
		env := testEnv(t)
		t.Setenv("TMPDIR", env.Cwd)
		env.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
		env.ApprovalPolicy = policy
		env.Approve = func(_ context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
			*asked++
			if req.Kind != protocol.ApprovalPatch || len(req.Files) == 0 {
				t.Errorf("bad request %+v", req)
			}
			return decision, nil
		}
		return env
	}
	var n int
	env := mk(protocol.ApprovalOnRequest, protocol.DecisionDenied, &n)
	if res := run(t, r, env, "apply_patch", map[string]any{"input": inside}); res.IsError || n != 0 {
		t.Fatalf("inside roots needs no approval: %q asked %d", res.Output, n)
	}
	if res := run(t, r, env, "apply_patch", map[string]any{"input": p}); !res.IsError || res.Output != "patch rejected by user" || n != 1 {
		t.Fatalf("denied outside: %q", res.Output)
	}
	n = 0
	env = mk(protocol.ApprovalOnRequest, protocol.DecisionApproved, &n)
	if res := run(t, r, env, "apply_patch", map[string]any{"input": p}); res.IsError || read(t, outsideDir, "o.txt") != "x\n" {
		t.Fatalf("approved outside: %q", res.Output)
	}
	_ = os.Remove(outside)
	env = mk(protocol.ApprovalNever, protocol.DecisionApproved, &n)
	if res := run(t, r, env, "apply_patch", map[string]any{"input": p}); !res.IsError || !strings.Contains(res.Output, "outside the writable roots") {
		t.Fatalf("never: %q", res.Output)
	}
	n = 0
	env = mk(protocol.ApprovalUntrusted, protocol.DecisionAbort, &n)
	if res := run(t, r, env, "apply_patch", map[string]any{"input": inside}); !res.Abort || n != 1 {
		t.Fatalf("untrusted abort: %+v", res)
	}
	env = testEnv(t)
	env.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	if res := run(t, r, env, "apply_patch", map[string]any{"input": inside}); !res.IsError || !strings.Contains(res.Output, "read-only") {
		t.Fatalf("read-only: %q", res.Output)
	}
}

func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch")
	f.Add("*** Begin Patch\n*** Update File: a.txt\n@@ h\n-a\n+b\n*** End of File\n*** End Patch")
	f.Add("*** Begin Patch\n*** Delete File: ../../etc/passwd\n*** End Patch")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := patch.Parse(in)
		if err != nil {
			return
		}
		dir := t.TempDir()
		_ = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\nb\nc\n"), 0o644)
		// Compute never writes; it must not panic on any parsed patch.
		_, _ = patch.Compute(p, dir)
	})
}
