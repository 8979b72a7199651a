package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/shellenv"
)

// ShellSessionRequest is a shell command to run as a session of the
// calling agent (exec_command, Claude's Bash with run_in_background).
type ShellSessionRequest struct {
	// Command is the script, run by Shell with -c.
	Command string
	// Dir is the directory it runs in, already checked against the
	// sandbox ("": the thread's cwd).
	Dir string
	// DirPin is Dir as checked and approved (exec_command): the command
	// starts there or not at all.
	DirPin *sandbox.DirPin
	// Shell is the shell binary ("": bash). Login runs it with the login
	// environment (the profile's variables); without, it gets grove's
	// environment, scrubbed by the shell environment policy either way.
	Shell string
	Login bool
	// TTY runs it on a pseudo-terminal (write_stdin can type into it).
	TTY bool
	// Timeout kills it after this long (0: it runs until closed).
	Timeout time.Duration
}

// StartShellSession starts r as a session owned by env's agent, in env's
// sandbox (the orchestrator already decided it: an approved escalation
// runs danger-full-access) on env's backend, with the environment every
// command gets. Read the session for its output.
func StartShellSession(env *Env, r ShellSessionRequest) (*Session, error) {
	if strings.TrimSpace(r.Command) == "" {
		return nil, errors.New("the command is empty")
	}
	policy := env.Sandbox
	backend := env.Backend()
	extra := []string{"GROVE_SANDBOX=" + string(policy.Mode), "PAGER=cat", "GIT_PAGER=cat", "GH_PAGER=cat", "NO_COLOR=1", "TERM=dumb"}
	if tmp := sandbox.WritableTempDir(policy); tmp != "" && backend.Info().Host == "" {
		// The temp dir the sandbox allows, even if a login profile set
		// another (a host's exec-server sets its own). With both temp
		// dirs excluded the command keeps the TMPDIR it inherits, as in
		// Codex, and cannot write there.
		extra = append(extra, "TMPDIR="+tmp)
	}
	argv, environ := shellArgv(r.Shell, r.Login, r.Command, extra)
	return env.SessionsFor().Start(SessionRequest{
		Owner:   env.ThreadID,
		Command: r.Command,
		Backend: backend,
		Timeout: r.Timeout,
		Exec: execenv.ExecRequest{
			Argv: argv, Cwd: env.Cwd, Dir: r.Dir, DirPin: r.DirPin, Env: environ, Policy: policy, TTY: r.TTY,
		},
	})
}

// shellArgv is the argv and environment that run script with shell (""
// is bash) as `SHELL -lc script` would when login is set (the login
// environment snapshot replaces re-running the profile), `SHELL -c
// script` otherwise. PowerShell gets -NoProfile -Command.
func shellArgv(shell string, login bool, script string, extra []string) ([]string, []string) {
	if (shell == "" || filepath.Base(shell) == "bash") && login {
		argv, environ := shellCommand(script, extra...)
		if shell != "" {
			argv[0] = shell
		}
		return argv, environ
	}
	if shell == "" {
		shell = "bash"
	}
	p := shellenv.Current()
	base := filepath.Base(shell)
	switch base {
	case "pwsh", "powershell", "pwsh.exe", "powershell.exe":
		return []string{shell, "-NoProfile", "-Command", script}, append(shellenv.Build(os.Environ(), p), extra...)
	}
	if login {
		if env := loginEnvironment(); env != nil {
			return []string{shell, "-c", script}, append(shellenv.Build(env, p), extra...)
		}
		return []string{shell, "-lc", script}, append(shellenv.Build(os.Environ(), p), extra...)
	}
	return []string{shell, "-c", script}, append(shellenv.Build(os.Environ(), p), extra...)
}
