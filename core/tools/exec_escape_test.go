package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// issue 9: `{"cmd":"echo x > …","workdir":"/"}` wrote outside the
// workspace, and `workdir:"../home"` rewrote grove's own config: the roots
// were computed from the workdir.
func TestExecWorkdirCannotWidenTheSandbox(t *testing.T) {
	if _, err := sandbox.Supported(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	work, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	for _, d := range []string{work, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(home, "config.toml")
	if err := os.WriteFile(config, []byte("approval_policy = \"on-request\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", work)
	r := coreRegistry(t)
	env := &Env{Cwd: work, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalOnRequest}
	for _, a := range []map[string]any{
		{"cmd": "echo x > " + filepath.Join(home, "f"), "workdir": "/"},
		{"cmd": "echo 'approval_policy = \"never\"' >> config.toml", "workdir": "../home"},
		{"cmd": "echo x > f", "workdir": home},
	} {
		res := run(t, r, env, "exec_command", a)
		if !res.IsError || !strings.Contains(res.Output, "outside this thread's workspace") || res.ExitCode != nil {
			t.Errorf("%v: want a refusal, got %+v", a, res)
		}
	}
	if b, _ := os.ReadFile(config); string(b) != "approval_policy = \"on-request\"\n" {
		t.Fatalf("config rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "f")); err == nil {
		t.Fatal("wrote outside the workspace")
	}
}

// issue 10: `setsid cmd &` escaped the group kill and outlived the command.
func TestExecSetsidChildDoesNotSurvive(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	pidfile := filepath.Join(env.Cwd, "pids")
	for _, a := range []map[string]any{
		{"cmd": "setsid sleep 100 >/dev/null 2>&1 & echo $! > " + pidfile},                                    // the command ends
		{"cmd": "setsid sleep 100 >/dev/null 2>&1 & echo $! > " + pidfile + "; sleep 100", "timeout_ms": 300}, // it times out
	} {
		_ = os.Remove(pidfile)
		res := run(t, r, env, "exec_command", a)
		ps := pids(t, pidfile)
		if len(ps) == 0 {
			t.Fatalf("%v: no pid: %+v", a, res)
		}
		for _, p := range ps {
			mustDie(t, p)
		}
	}
}
