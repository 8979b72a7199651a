package tools

import (
	"github.com/grovecli/grove/core/shellenv"
)

// HookEnv is the environment hooks (core/hooks) start from: the same login
// snapshot commands get, scrubbed by the same policy (core/shellenv), so
// no provider key or secret-looking variable reaches a hook either.
func HookEnv() []string {
	if env := loginEnvironment(); env != nil {
		return shellenv.Build(env, shellenv.Current())
	}
	return shellenv.Environ(nil)
}
