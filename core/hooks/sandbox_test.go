package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// sandboxedProject is a trusted project (work) whose reviewed Stop hook
// runs `make -s test`, a directory outside every writable root (outside:
// the user's home, say), and the temp dir inside the project so that
// nothing else is writable.
func sandboxedProject(t *testing.T, state string) (r *Runner, work, outside string) {
	t.Helper()
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	base := t.TempDir()
	work, outside = filepath.Join(base, "work"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(work, ".codex"), filepath.Join(work, "tmp"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", filepath.Join(work, "tmp"))
	hooksFile := filepath.Join(work, ".codex", "hooks.json")
	write(t, hooksFile, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"make -s test"}]}]}}`)
	write(t, filepath.Join(work, "Makefile"), "test:\n\t@echo reviewed\n")
	cfg := trustedProject(t, work)
	set := Discover(Locations{Cwd: work, GroveHome: t.TempDir()}, mustState(t, cfg))
	if err := RecordTrust(cfg, set.NeedsReview()); err != nil {
		t.Fatal(err)
	}
	if state != "" { // the user's line, in the hook's own table
		b, _ := os.ReadFile(cfg)
		head := ":stop:0:0\"]\n"
		if !strings.Contains(string(b), head) {
			t.Fatalf("no table for the hook in:\n%s", b)
		}
		write(t, cfg, strings.Replace(string(b), head, head+state+"\n", 1))
	}
	set = Discover(Locations{Cwd: work, GroveHome: t.TempDir()}, mustState(t, cfg))
	if len(set.Active(false)) != 1 {
		t.Fatalf("hook not active: %+v %v", set.Hooks, set.Warnings)
	}
	r = NewRunner(set.Active(false), Options{Shell: "sh", Env: testEnv, ProjectDir: work,
		Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}})
	t.Cleanup(r.Close)
	// The model, in a sandboxed command, rewrites the Makefile the
	// reviewed hook runs (the review covers the hook, not `make`'s input).
	write(t, filepath.Join(work, "Makefile"), "test:\n\t@touch "+filepath.Join(outside, "PWNED")+"; echo ran > ran.txt\n")
	return r, work, outside
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustState(t *testing.T, cfg string) State {
	t.Helper()
	st, err := LoadState(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Issue 31 item 7: a reviewed Stop hook running `make test` after the
// model edited the Makefile ran the model's recipe as the user. It now
// runs in the session's sandbox: the write outside the roots fails, the
// one inside works.
func TestHookRunningProjectCodeStaysInSandbox(t *testing.T) {
	r, work, outside := sandboxedProject(t, "")
	r.Stop(context.Background(), testContext(work), "done", false)
	if _, err := os.Stat(filepath.Join(outside, "PWNED")); err == nil {
		t.Fatal("the hook wrote outside the sandbox's roots")
	}
	if _, err := os.Stat(filepath.Join(work, "ran.txt")); err != nil {
		t.Fatalf("the hook did not run in the sandbox: %v", err)
	}
}

// `grove_sandbox = "none"` in the hook's [hooks.state] table is the
// user's per-hook choice to run it outside.
func TestHookSandboxNoneRunsOutside(t *testing.T) {
	r, work, outside := sandboxedProject(t, `grove_sandbox = "none"`)
	r.Stop(context.Background(), testContext(work), "done", false)
	if _, err := os.Stat(filepath.Join(outside, "PWNED")); err != nil {
		t.Fatalf("the unsandboxed hook did not run outside: %v", err)
	}
}
