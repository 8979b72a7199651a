package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// exec's setting flags are judged by the session core, as every front
// end's settings are (the TUI's /approvals, ACP's set_mode, the
// app-server's turn/start): a bad value fails before any model call, the
// error naming the flag and then the field in the core's words; valid
// ones reach the model request.
func TestExecSettingFlagsAreTheSessionCoresCheck(t *testing.T) {
	s := codexScriptServer(t)
	home, work := t.TempDir(), t.TempDir()
	badSchema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(badSchema, []byte(`[1]`), 0o644); err != nil {
		t.Fatal(err)
	}
	core := func(o protocol.TurnOverrides) string { return app.CheckTurnSettings(&o).Error() }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-s", "bogus"}, "--sandbox: " + core(protocol.TurnOverrides{Sandbox: &protocol.SandboxPolicy{Mode: "bogus"}})},
		{[]string{"--ask-for-approval", "sometimes"}, "--ask-for-approval: " + core(protocol.TurnOverrides{ApprovalPolicy: "sometimes"})},
		{[]string{"--output-schema", badSchema}, "--output-schema " + badSchema + ": " + core(protocol.TurnOverrides{OutputSchema: json.RawMessage(`[1]`)})},
	} {
		args := append(append([]string{"exec", "--cd", work, "-m", "m"}, c.args...), "hi")
		if _, _, err := runCLI(t, home, "", args...); err == nil || err.Error() != c.want {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("refused settings still made %d model requests", n)
	}
	if _, errOut, err := runCLI(t, home, "", "exec", "--cd", work, "-m", "m2", "-s", "read-only", "--ask-for-approval", "on-failure", "hi"); err != nil {
		t.Fatalf("valid settings: %v\n%s", err, errOut)
	}
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	r := reqs[len(reqs)-1]
	if sys := systemPrompt(r); r.Body["model"] != "m2" || !strings.Contains(sys, "sandbox: read-only") || !strings.Contains(sys, "approval policy: on-failure") {
		t.Fatalf("model %v; instructions:\n%s", r.Body["model"], sys)
	}
}
