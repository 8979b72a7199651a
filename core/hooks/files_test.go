package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewedHookScriptRewritten (issue 21, fourth pass): a reviewed
// project hook runs `bash scripts/pre.sh`; a sandboxed command rewrote
// the script, and the next tool call ran the model's code outside the
// sandbox (Codex's review hash covers the declaration only). Now the
// script's fingerprint is part of grove's review and checked before every
// run: the rewritten script does not run, within the session or at the
// next start, until reviewed again.
func TestReviewedHookScriptRewritten(t *testing.T) {
	root := project(t, map[string]string{
		".codex/hooks.json": `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"bash scripts/pre.sh"}]},{"hooks":[{"type":"command","command":"true"}]}]}}`,
		"scripts/pre.sh":    "echo original >> ran.txt\n",
	})
	cfg := trustedProject(t, root)
	loc := Locations{Cwd: root}
	load := func() Set {
		st, err := LoadState(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return Discover(loc, st)
	}
	set := load()
	if len(set.Hooks) != 2 || len(set.Hooks[0].Files) != 1 || !strings.HasSuffix(set.Hooks[0].Files[0], "scripts/pre.sh") || set.Hooks[1].Files != nil {
		t.Fatalf("named files: %+v", set.Hooks)
	}
	if err := RecordTrust(cfg, set.Hooks); err != nil {
		t.Fatal(err)
	}
	set = load()
	if len(set.Active(false)) != 2 {
		t.Fatalf("reviewed hooks not active: %+v", set.Hooks)
	}
	r := NewRunner(set.Active(false), Options{Shell: "sh", Env: testEnv, ProjectDir: root})
	defer r.Close()
	c := Context{SessionID: "s", Cwd: root}
	tool := Tool{Name: "Bash", Input: map[string]any{"command": "ls"}}
	if o := r.PreToolUse(context.Background(), c, tool); len(o.Notes) != 0 {
		t.Fatalf("first run: %+v", o)
	}
	// The model rewrites the script from inside the sandbox.
	if err := os.WriteFile(filepath.Join(root, "scripts/pre.sh"), []byte("echo pwned >> ran.txt\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := r.PreToolUse(context.Background(), c, tool)
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "changed since the hook was reviewed") {
		t.Errorf("the rewritten hook was not reported: %+v", o)
	}
	if raw, _ := os.ReadFile(filepath.Join(root, "ran.txt")); string(raw) != "original\n" {
		t.Fatalf("ESCAPE: ran.txt = %q", raw)
	}
	// The next start: modified, skipped until reviewed again; the hook
	// that names no file keeps its review.
	set = load()
	if set.Hooks[0].Trust != TrustModified || set.Hooks[1].Trust != TrustTrusted {
		t.Fatalf("after the rewrite: %s, %s", set.Hooks[0].Trust, set.Hooks[1].Trust)
	}
}

// A review Codex recorded (trusted_hash only) still counts for a hook
// that names no project file, not for one that runs a project script.
func TestCodexReviewDoesNotCoverFiles(t *testing.T) {
	root := project(t, map[string]string{
		".codex/hooks.json": `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"bash scripts/pre.sh"}]},{"hooks":[{"type":"command","command":"true"}]}]}}`,
		"scripts/pre.sh":    "true\n",
	})
	cfg := trustedProject(t, root)
	st, _ := LoadState(cfg)
	set := Discover(Locations{Cwd: root}, st)
	var codex strings.Builder
	for _, h := range set.Hooks {
		codex.WriteString("[hooks.state." + tomlQuote(h.Key) + "]\ntrusted_hash = " + tomlQuote(h.Hash) + "\n")
	}
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(codex.String())
	_ = f.Close()
	st, _ = LoadState(cfg)
	set = Discover(Locations{Cwd: root}, st)
	if set.Hooks[0].Trust != TrustModified || set.Hooks[1].Trust != TrustTrusted {
		t.Fatalf("trust: %s, %s", set.Hooks[0].Trust, set.Hooks[1].Trust)
	}
}

func TestNamedFiles(t *testing.T) {
	root := project(t, map[string]string{"a.sh": "", "b/c.py": "", "d.txt": ""})
	cmd := `python3 "$CLAUDE_PROJECT_DIR/b/c.py" --config=d.txt; ./a.sh | jq . && cat /etc/hostname missing.sh`
	got := namedFiles(cmd, root, root)
	real, _ := filepath.EvalSymlinks(root)
	want := []string{filepath.Join(real, "a.sh"), filepath.Join(real, "b/c.py"), filepath.Join(real, "d.txt")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("namedFiles = %q, want %q", got, want)
	}
}
