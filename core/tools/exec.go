package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// ExecOptions tunes exec_command; zero values mean the defaults.
type ExecOptions struct {
	DefaultTimeout time.Duration // unused: kept for callers; commands have no default timeout
	MaxTimeout     time.Duration // 10 min: the largest timeout_ms
	MaxOutputBytes int           // unused: output is bounded by max_output_tokens
}

// Yield clamps (Codex's unified exec: MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS)
// and the default wait of exec_command.
const (
	minYield          = 250 * time.Millisecond
	maxYield          = 30 * time.Second
	defaultExecYield  = 10 * time.Second
	defaultWriteYield = 250 * time.Millisecond
	minEmptyPollYield = 5 * time.Second
	maxEmptyPollYield = 300 * time.Second
)

type execCommand struct{ o ExecOptions }

// NewExecCommand returns the exec_command tool.
func NewExecCommand(o ExecOptions) Tool {
	if o.MaxTimeout == 0 {
		o.MaxTimeout = 10 * time.Minute
	}
	return &execCommand{o: o}
}

func (x *execCommand) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "exec_command", Description: "Runs a command in a PTY, returning output or a session ID for ongoing interaction.\n\nThe command runs with `bash -c` in the login environment, inside the sandbox. If it is still running after yield_time_ms (default 10000, clamped to 250..30000) it keeps running as a session: the answer names its session ID, and write_stdin polls it, types into it (tty: true) or interrupts it (\"\\u0003\"). Set timeout_ms to wait for the command to finish instead (it is killed when the time runs out, at most " + x.o.MaxTimeout.String() + "). Set sandbox_permissions to require_escalated (with a justification) only when the command truly needs to run outside the sandbox.", Parameters: schema.MustObject(execArgs{})}
}

// execArgs are exec_command's arguments, Codex's (codex-rs/tools,
// create_exec_command_tool) plus grove's timeout_ms; the schema is
// generated from them. The numbers are float64 because Codex declares
// them "number": a model may send 1000.0.
type execArgs struct {
	Cmd                string   `json:"cmd" required:"true" jsonschema:"Shell command to execute."`
	Workdir            string   `json:"workdir" jsonschema:"Optional working directory to run the command in; defaults to the turn cwd."`
	Shell              string   `json:"shell" jsonschema:"Shell binary to launch. Defaults to bash."`
	Login              *bool    `json:"login" jsonschema:"Whether to run the shell with -l/-i semantics. Defaults to true."`
	TTY                bool     `json:"tty" jsonschema:"Whether to allocate a TTY for the command. Defaults to false (plain pipes); set to true to open a PTY and access TTY process."`
	YieldTimeMS        *float64 `json:"yield_time_ms" minimum:"0" jsonschema:"How long to wait (in milliseconds) for output before yielding."`
	MaxOutputTokens    *float64 `json:"max_output_tokens" minimum:"0" jsonschema:"Maximum number of tokens to return. Excess output will be truncated."`
	TimeoutMS          int64    `json:"timeout_ms" minimum:"1" jsonschema:"Wait for the command to finish, killing it after this many milliseconds (no session is left running)."`
	SandboxPermissions string   `json:"sandbox_permissions" enum:"use_default,require_escalated" jsonschema:"Sandbox permissions for the command. Set to \"require_escalated\" to request running without sandbox restrictions; defaults to \"use_default\"."`
	Justification      string   `json:"justification" jsonschema:"Only set if sandbox_permissions is \"require_escalated\". Request approval from the user to run this command outside the sandbox. Phrased as a simple question that summarizes the purpose of the command as it relates to the task at hand - e.g. 'Do you want to fetch and pull the latest version of this git branch?'"`
	PrefixRule         []string `json:"prefix_rule" jsonschema:"Only specify when sandbox_permissions is require_escalated. Suggest a prefix command pattern that will allow you to fulfill similar requests from the user in the future. Should be a short but reasonable prefix, e.g. [\"git\", \"pull\"] or [\"uv\", \"run\"] or [\"pytest\"]."`
}

// Gate describes the call for the orchestrator: the command, where it
// runs, whether it asks to leave the sandbox and whether the known-safe
// judge finds it read-only.
func (x *execCommand) Gate(_ context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	a, dir, res := x.args(env, raw)
	if res != nil {
		return Gate{}, res
	}
	escalate := a.SandboxPermissions == "require_escalated"
	var pin *sandbox.DirPin
	if env.Backend().Info().Host == "" {
		p, err := sandbox.PinDir(dir)
		if err != nil {
			r := Errorf("exec_command: %v", err)
			return Gate{}, &r
		}
		pin = p
	}
	reason := a.Justification
	if escalate && len(a.PrefixRule) > 0 {
		// The model's suggested rule is shown, not applied: approving for
		// the session remembers this exact command only.
		reason = strings.TrimSpace(reason + " (suggested rule for later: commands starting with `" + strings.Join(a.PrefixRule, " ") + "`)")
	}
	return Gate{
		Workdir:   pin,
		Kind:      GateExec,
		Request:   protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: a.Cmd, Cwd: dir, Reason: reason, Sandbox: env.Sandbox.Mode},
		Escalate:  escalate,
		KnownSafe: !escalate && !a.TTY && a.Shell == "" && IsKnownSafe(a.Cmd),
	}, nil
}

// args decodes and checks the arguments and the working directory.
func (x *execCommand) args(env *Env, raw json.RawMessage) (execArgs, string, *Result) {
	var a execArgs
	if err := decode("exec_command", raw, &a); err != nil {
		r := Errorf("%v", err)
		return a, "", &r
	}
	if strings.TrimSpace(a.Cmd) == "" {
		r := Errorf("exec_command: cmd is empty")
		return a, "", &r
	}
	if _, err := useLoginShell(a.Login, env); err != nil {
		r := Errorf("%v", err)
		return a, "", &r
	}
	if env.Backend().Info().Host != "" {
		// The files are on the host: its backend checks the workdir.
		return a, resolvePath(env.Cwd, a.Workdir), nil
	}
	dir, err := sandbox.CheckWorkdir(env.Sandbox, env.Cwd, a.Workdir)
	if err != nil {
		r := Errorf("exec_command: %v", err)
		return a, "", &r
	}
	return a, dir, nil
}

// Run starts the command in env.Sandbox (the orchestrator decided it) as
// a session of the calling agent and waits for it up to the yield time:
// a command that ended answers with its exit code and is gone, one still
// running stays a session the answer names.
func (x *execCommand) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	a, dir, res := x.args(env, raw)
	if res != nil {
		return *res
	}
	if err := ctx.Err(); err != nil {
		// The turn ended (an interrupt, grove exec shutting down) before
		// the command started: it is not started only to be killed.
		return Result{Output: fmt.Sprintf("command was not run: %s before it started", stopCause(err)), IsError: true}
	}
	if env.Workdir != nil {
		dir = env.Workdir.Path // as checked and approved, never resolved again
	}
	yield, timeout := x.waits(a)
	login, _ := useLoginShell(a.Login, env) // checked by args
	start := time.Now()
	s, err := StartShellSession(env, ShellSessionRequest{
		Command: a.Cmd, Dir: dir, DirPin: env.Workdir, Shell: a.Shell, Login: login, TTY: a.TTY, Timeout: timeout,
	})
	if err != nil {
		return Errorf("exec_command: %v", err)
	}
	return readSession(ctx, env, s, start, yield, tokens(a.MaxOutputTokens), a.Cmd)
}

// waits turns the arguments into the wait of this call and the session's
// lifetime: yield_time_ms clamped to 250 ms..30 s (default 10 s);
// timeout_ms alone waits for the end, killing the command when it runs out.
func (x *execCommand) waits(a execArgs) (yield, timeout time.Duration) {
	if a.TimeoutMS > 0 {
		// Clamp in milliseconds first: a huge value would overflow the
		// Duration product and wrap negative (an instant timeout).
		timeout = time.Duration(min(a.TimeoutMS, x.o.MaxTimeout.Milliseconds())) * time.Millisecond
	}
	switch {
	case a.YieldTimeMS != nil:
		yield = clampMS(*a.YieldTimeMS, minYield, maxYield)
	case timeout > 0:
		yield = timeout + stopGraceWait
	default:
		yield = defaultExecYield
	}
	return yield, timeout
}

// stopGraceWait lets a timed-out command's kill land within the call.
const stopGraceWait = 3 * time.Second

// clampMS turns a model's millisecond count into a duration within lo..hi.
func clampMS(ms float64, lo, hi time.Duration) time.Duration {
	if ms != ms || ms < 0 { // NaN, negative
		return lo
	}
	d := time.Duration(min(ms, float64(hi.Milliseconds()))) * time.Millisecond
	return max(lo, min(d, hi))
}

// tokens is a model's max_output_tokens (0: the default).
func tokens(v *float64) int {
	if v == nil || *v != *v || *v < 0 {
		return 0
	}
	return int(min(*v, 1<<40))
}

// readSession collects s's output until the yield time and answers in
// Codex's format; the output also streams live to the call's UI card.
func readSession(ctx context.Context, env *Env, s *Session, start time.Time, yield time.Duration, maxTokens int, command string) Result {
	var live io.Writer
	if env != nil && env.Emit != nil {
		streamer := newOutputStreamer(env.Emit, env.CallID, streamInterval)
		defer streamer.close()
		live = streamer
	}
	c := s.Read(ctx, start.Add(yield), live)
	if ctx.Err() != nil && !c.Exited {
		// The turn was interrupted (or grove is shutting down) during the
		// wait: the command is killed with it, nothing survives. One that
		// ended by itself meanwhile keeps its exit code.
		s.Close()
		rest := s.Read(context.Background(), time.Now(), live)
		c.Output, c.Exited, c.ExitCode, c.Err, c.SandboxDenied = append(c.Output, rest.Output...), rest.Exited, rest.ExitCode, rest.Err, rest.SandboxDenied
	}
	// A code below 128 is an exit of its own (no signal: the backends'
	// shell convention), even when the turn ended as it finished.
	killed := ctx.Err() != nil && c.Exited && (c.Err != nil || c.ExitCode < 0 || c.ExitCode >= 128)
	if killed {
		c.Output = append(c.Output, "\n[command was interrupted and killed: the turn was interrupted]\n"...)
	}
	wall := time.Since(start)
	r := unifiedResult{wall: wall, session: s.ID(), raw: c.Output, omitted: c.Omitted, maxTokens: maxTokens}
	out := Result{Duration: wall, IsError: killed || c.TimedOut}
	if c.Exited {
		code := c.ExitCode
		r.exitCode = &code
		out.ExitCode = &code
		out.SandboxDenied = c.SandboxDenied
		out.Summary = fmt.Sprintf("`%s` → exit %d (%.1fs)", clipCmd(command), code, wall.Seconds())
		if c.Err != nil {
			out.IsError = true
			out.Output = fmt.Sprintf("exec_command: %v\n", c.Err)
		}
	} else {
		out.Summary = fmt.Sprintf("`%s` → running as session %d", clipCmd(command), s.ID())
	}
	out.Output += r.text()
	// The command's own output, for the front ends' aggregated_output
	// (Codex's): no chunk header, no truncation marker.
	own := strings.ToValidUTF8(string(c.Output), "\uFFFD")
	out.CommandOutput = &own
	out.ProcessID = strconv.Itoa(s.ID())
	return out
}

// Prewarm starts the sandbox helper the thread's commands run through, so
// the first exec_command does not wait ~130 ms for it. Only a local
// backend has one here (a host's exec-server runs its own).
func (x *execCommand) Prewarm(env *Env) {
	if env.Backend().Info().Host == "" {
		_ = sandbox.Prewarm(env.Sandbox, env.Cwd)
	}
}

// stopCause says why a command's context ended.
func stopCause(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "its time ran out"
	}
	return "the turn was interrupted or grove was shutting down"
}

// clipCmd shortens a command for the one-line summary to 60 characters,
// cutting between runes, never inside one.
func clipCmd(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 60 {
		return string([]rune(s)[:57]) + "…"
	}
	return s
}
