package tools

import (
	"encoding/json"
	"errors"

	"github.com/grovecli/grove/core/model"
)

// errLoginShellDisabled is Codex's answer to `login: true` under
// allow_login_shell = false (codex-rs/core/src/tools/handlers/
// unified_exec.rs, get_command), word for word.
//
//lint:ignore ST1005 the model reads Codex's sentence, its full stop included
var errLoginShellDisabled = errors.New("login shell is disabled by config; omit `login` or set it to false.")

// useLoginShell decides exec_command's login shell as Codex's get_command
// does: an explicit `login` wins, except that `login: true` is refused
// when the config disallows login shells; without it, the config decides
// (allow_login_shell, true by default).
func useLoginShell(login *bool, env *Env) (bool, error) {
	allowed := env == nil || !env.NoLoginShell
	switch {
	case login == nil:
		return allowed, nil
	case *login && !allowed:
		return false, errLoginShellDisabled
	}
	return *login, nil
}

// withoutLoginParameter drops `login` from a tool's parameters, as Codex's
// create_exec_command_tool does when allow_login_shell is false: the model
// is not offered what it may not use.
func withoutLoginParameter(sp model.ToolSpec) model.ToolSpec {
	if len(sp.Parameters) == 0 {
		return sp
	}
	var schema map[string]json.RawMessage
	if json.Unmarshal(sp.Parameters, &schema) != nil {
		return sp
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(schema["properties"], &props) != nil {
		return sp
	}
	if _, ok := props["login"]; !ok {
		return sp
	}
	delete(props, "login")
	b, err := json.Marshal(props)
	if err != nil {
		return sp
	}
	schema["properties"] = b
	if b, err = json.Marshal(schema); err == nil {
		sp.Parameters = b
	}
	return sp
}
