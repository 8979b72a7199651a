package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookEnv isolates hook discovery: no real ~/.claude, ~/.codex or
// /etc/codex is read.
func hookEnv(t *testing.T) {
	t.Helper()
	noProviderEnv(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	t.Setenv("GROVE_SYSTEM_CONFIG_DIR", t.TempDir())
}

func hookProject(t *testing.T, hooksJSON string) string {
	t.Helper()
	proj := t.TempDir()
	for _, d := range []string{".git", ".codex"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".codex", "hooks.json"), []byte(hooksJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	return proj
}

// An untrusted project's hooks (gh-zen's unchanged hooks.json) are
// refused, and exec says which, why, and in which file.
func TestExecRefusesUntrustedProjectHooks(t *testing.T) {
	hookEnv(t)
	fixture, err := os.ReadFile("../../core/hooks/testdata/public/gh-zen.hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	proj := hookProject(t, string(fixture))
	_, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--demo", "-C", proj, "--approve-workdirs", "hello")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	file := filepath.Join(proj, ".codex", "hooks.json")
	for _, want := range []string{
		`grove: hook skipped: PostToolUse "\"$(git rev-parse --show-toplevel)/scripts/agent-go-check.sh\"" in ` + file + `: the project is not trusted`,
		`grove: hook skipped: Stop "\"$(git rev-parse --show-toplevel)/scripts/agent-stop-gate.sh\"" in ` + file,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// grove hooks lists; grove hooks trust records the review; then the hook
// runs in exec with Codex's stdin, and a changed hook is skipped again.
func TestHooksTrustThenRun(t *testing.T) {
	hookEnv(t)
	home := t.TempDir()
	// Hooks run in the session's sandbox (workspace-write): the log goes
	// to a writable root, the temp dir.
	logDir := filepath.Join(os.Getenv("TMPDIR"), "hooklog")
	if err := os.Mkdir(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	hooksJSON := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"cat >> ` + logDir + `/prompt.json; echo >> ` + logDir + `/prompt.json"}]}]}}`
	proj := hookProject(t, hooksJSON)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[projects."+quote(proj)+"]\ntrust_level = \"trusted\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, home, "", "hooks", "-C", proj)
	if err != nil || !strings.Contains(out, "UserPromptSubmit: cat >> ") || !strings.Contains(out, "untrusted, skipped: not reviewed yet") {
		t.Fatalf("hooks list (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, home, "", "hooks", "trust", "--all", "-C", proj)
	if err != nil || !strings.Contains(out, "recorded 1 review(s)") {
		t.Fatalf("hooks trust (%v):\n%s", err, out)
	}
	out, _, _ = runCLI(t, home, "", "hooks", "--json", "-C", proj)
	var rows []hookRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || !rows[0].Runs || rows[0].Trust != "trusted" {
		t.Fatalf("hooks --json after trust: %v\n%s", err, out)
	}
	_, errOut, err := runCLI(t, home, "", "exec", "--demo", "-C", proj, "--approve-workdirs", "hello hooks")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	var in map[string]any
	b, err := os.ReadFile(filepath.Join(logDir, "prompt.json"))
	if err != nil {
		t.Fatalf("the trusted hook did not run: %v\n%s", err, errOut)
	}
	// The root's prompt comes first; the demo's sub-agents' follow.
	first, _, _ := strings.Cut(string(b), "\n")
	if err := json.Unmarshal([]byte(first), &in); err != nil || in["prompt"] != "hello hooks" || in["hook_event_name"] != "UserPromptSubmit" || in["cwd"] != proj {
		t.Fatalf("stdin %s (%v)", b, err)
	}
	// Changed after the review: skipped and said so.
	changed := strings.Replace(hooksJSON, "prompt.json", "prompt2.json", 1)
	os.WriteFile(filepath.Join(proj, ".codex", "hooks.json"), []byte(changed), 0o644)
	_, errOut, _ = runCLI(t, home, "", "exec", "--demo", "-C", proj, "--approve-workdirs", "again")
	if !strings.Contains(errOut, "changed since it was reviewed") {
		t.Fatalf("changed hook not reported:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(logDir, "prompt2.json")); err == nil {
		t.Fatal("a changed hook ran without a new review")
	}
	// --dangerously-bypass-hook-trust runs it for this run, and says so.
	_, errOut, _ = runCLI(t, home, "", "exec", "--demo", "--dangerously-bypass-hook-trust", "-C", proj, "--approve-workdirs", "again")
	if _, err := os.Stat(filepath.Join(logDir, "prompt2.json")); err != nil || !strings.Contains(errOut, "runs unreviewed") {
		t.Fatalf("bypass: %v\n%s", err, errOut)
	}
}

// The TUI's question shows each command; yes records the reviews, no
// records nothing.
func TestAskHookReview(t *testing.T) {
	hookEnv(t)
	home := t.TempDir()
	proj := hookProject(t, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"make check"}]}]}}`)
	cfgPath := filepath.Join(home, "config.toml")
	os.WriteFile(cfgPath, []byte("[projects."+quote(proj)+"]\ntrust_level = \"trusted\"\n"), 0o600)
	t.Setenv("GROVE_HOME", home)
	g := &globalFlags{cd: proj}
	set, _, err := loadHookSet(g)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if askHookReview(set.NeedsReview(), cfgPath, strings.NewReader("n\n"), &out) {
		t.Fatal("no was taken as yes")
	}
	if !strings.Contains(out.String(), "make check") {
		t.Errorf("the question does not show the command:\n%s", out.String())
	}
	if b, _ := os.ReadFile(cfgPath); strings.Contains(string(b), "trusted_hash") {
		t.Fatal("no recorded a review")
	}
	if !askHookReview(set.NeedsReview(), cfgPath, strings.NewReader("y\n"), &out) {
		t.Fatal("yes not taken")
	}
	set, _, _ = loadHookSet(g)
	if len(set.Active(false)) != 1 {
		t.Fatalf("after yes: %+v", set.Hooks)
	}
}
