package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// Codex's get_command (codex-rs/core/src/tools/handlers/unified_exec.rs)
// and its test shell_command_handler_rejects_login_when_disallowed
// (codex-rs/core/src/tools/handlers/shell_tests.rs): `login` wins when
// given, `login: true` is refused when allow_login_shell is false, and
// without it the config decides.
func TestUseLoginShellFollowsCodex(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		login   *bool
		noLogin bool
		want    bool
		err     bool
	}{
		{"allowed, omitted: login", nil, false, true, false},
		{"allowed, true", &yes, false, true, false},
		{"allowed, false", &no, false, false, false},
		{"disallowed, omitted: no login", nil, true, false, false},
		{"disallowed, false", &no, true, false, false},
		{"disallowed, true: refused", &yes, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := useLoginShell(tc.login, &Env{NoLoginShell: tc.noLogin})
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("got %v, %v; want %v, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// allow_login_shell = false: exec_command{login: true} answers Codex's
// error and runs nothing; without login (or login: false) the command runs.
func TestExecLoginRefusedWhenDisallowed(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	env.NoLoginShell = true
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "touch ran", "login": true})
	if !res.IsError || res.Output != "login shell is disabled by config; omit `login` or set it to false." {
		t.Fatalf("login: true: %+v", res)
	}
	if read(t, env.Cwd, "ran") != "<missing>" {
		t.Fatal("the refused command ran")
	}
	for _, args := range []map[string]any{{"cmd": "touch a"}, {"cmd": "touch b", "login": false}} {
		if res := run(t, r, env, "exec_command", args); res.IsError || !strings.Contains(res.Output, "Process exited with code 0") {
			t.Fatalf("%v: %+v", args, res)
		}
	}
	if read(t, env.Cwd, "a") != "" || read(t, env.Cwd, "b") != "" {
		t.Fatal("the allowed commands did not run")
	}
}

// Codex's create_exec_command_tool leaves `login` out of the schema when
// allow_login_shell is false.
func TestLoginParameterOfferedOnlyWhenAllowed(t *testing.T) {
	spec := NewExecCommand(ExecOptions{}).Spec()
	has := func(cfg ToolConfig) bool {
		offered := ToolSetFor("gpt-5.1-codex", cfg).Offer([]model.ToolSpec{spec})
		if len(offered) != 1 {
			t.Fatalf("exec_command offered %d times", len(offered))
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(offered[0].Parameters, &s); err != nil {
			t.Fatal(err)
		}
		if s.Properties["cmd"] == nil {
			t.Fatalf("cmd lost: %s", offered[0].Parameters)
		}
		return s.Properties["login"] != nil
	}
	if !has(ToolConfig{}) || has(ToolConfig{NoLoginShell: true}) {
		t.Fatalf("login offered by default %v, with allow_login_shell = false %v", has(ToolConfig{}), has(ToolConfig{NoLoginShell: true}))
	}
}
