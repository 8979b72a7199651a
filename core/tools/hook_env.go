package tools

import "os"

// HookEnv is the environment hooks (core/hooks) start from: the same login
// snapshot commands get, filtered by the same shell environment policy, so
// no provider key or secret-looking variable reaches a hook either.
// (Until the security work exports one scrubbing function for every
// process grove starts, this shares shellCommand's.)
func HookEnv() []string {
	var p ShellEnvPolicy
	if cur := shellEnvPolicy.Load(); cur != nil {
		p = *cur
	}
	if env := loginEnvironment(); env != nil {
		return filterEnv(env, p)
	}
	return filterEnv(os.Environ(), p)
}
