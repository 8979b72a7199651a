package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeBashCwdResetOutsideProject: Claude Code's tools reference,
// "Bash tool behavior": the working directory "carries over to later Bash
// commands as long as it stays inside the project directory or an
// additional working directory"; "If cd lands outside those directories,
// Claude Code resets to the project directory and appends `Shell cwd was
// reset to <dir>` to the tool result." Here the project directory is the
// thread's cwd and the additional one a writable root, whatever the
// sandbox mode.
func TestClaudeBashCwdResetOutsideProject(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	extra := t.TempDir()
	env.Sandbox.WritableRoots = []string{extra}
	if err := os.MkdirAll(filepath.Join(env.Cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bash := func(cmd string) string { return run(t, r, env, ClaudeBash, map[string]any{"command": cmd}).Output }
	if out := bash("cd sub"); out != "" {
		t.Errorf("cd sub answered %q, want nothing", out)
	}
	if out := bash("pwd -P"); out != real(filepath.Join(env.Cwd, "sub")) {
		t.Errorf("after cd sub, pwd = %q", out)
	}
	if out := bash("cd " + extra + " && echo there"); out != "there" {
		t.Errorf("cd into an additional directory answered %q", out)
	}
	if out := bash("pwd -P"); out != real(extra) {
		t.Errorf("after cd into the additional directory, pwd = %q", out)
	}
	if out, want := bash("cd / && echo left"), "left\n"+shellCwdReset+env.Cwd; out != want {
		t.Errorf("cd / answered %q, want %q", out, want)
	}
	if out := bash("pwd -P"); out != real(env.Cwd) {
		t.Errorf("after the reset, pwd = %q, want the project directory", out)
	}
	if out, want := bash("cd /"), shellCwdReset+env.Cwd; out != want {
		t.Errorf("a silent cd / answered %q, want %q", out, want)
	}
}
