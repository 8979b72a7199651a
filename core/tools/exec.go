package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// ExecOptions tunes exec_command; zero values mean the defaults.
type ExecOptions struct {
	DefaultTimeout time.Duration // 60s
	MaxTimeout     time.Duration // 10 min
	MaxOutputBytes int           // 32 KiB, kept as head + tail
}

type execCommand struct{ o ExecOptions }

// NewExecCommand returns the exec_command tool.
func NewExecCommand(o ExecOptions) Tool {
	if o.DefaultTimeout == 0 {
		o.DefaultTimeout = 60 * time.Second
	}
	if o.MaxTimeout == 0 {
		o.MaxTimeout = 10 * time.Minute
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = 32 << 10
	}
	return &execCommand{o: o}
}

func (x *execCommand) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "exec_command", Description: fmt.Sprintf("Run a shell command with `bash -lc` in the working directory (inside the sandbox). Returns the exit code, wall time and combined stdout/stderr (long output keeps its head and tail). Default timeout %s, max %s. Set sandbox_permissions to require_escalated (with a justification) only when the command truly needs to run outside the sandbox.", x.o.DefaultTimeout, x.o.MaxTimeout), Parameters: schema.MustObject(execArgs{})}
}

// execArgs are exec_command's arguments; its schema is generated from them.
type execArgs struct {
	Cmd                string `json:"cmd" required:"true" jsonschema:"Shell command, run by bash -lc."`
	Workdir            string `json:"workdir" jsonschema:"Directory to run in (default: the working directory)."`
	TimeoutMS          int64  `json:"timeout_ms" minimum:"1" jsonschema:"Timeout in milliseconds."`
	SandboxPermissions string `json:"sandbox_permissions" enum:"use_default,require_escalated"`
	Justification      string `json:"justification" jsonschema:"Why escalation is needed (shown to the user)."`
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
	return Gate{
		Workdir:   pin,
		Kind:      GateExec,
		Request:   protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: a.Cmd, Cwd: dir, Reason: a.Justification, Sandbox: env.Sandbox.Mode},
		Escalate:  escalate,
		KnownSafe: !escalate && IsKnownSafe(a.Cmd),
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

// Run runs the command in env.Sandbox (the orchestrator decided it).
func (x *execCommand) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	a, dir, res := x.args(env, raw)
	if res != nil {
		return *res
	}
	timeout := x.o.DefaultTimeout
	if a.TimeoutMS > 0 {
		// Clamp in milliseconds first: a huge value would overflow the
		// Duration product and wrap negative (an instant timeout).
		timeout = time.Duration(min(a.TimeoutMS, x.o.MaxTimeout.Milliseconds())) * time.Millisecond
	}
	if env.Workdir != nil {
		dir = env.Workdir.Path // as checked and approved, never resolved again
	}
	return x.run(ctx, env, env.Sandbox, env.Cwd, dir, a.Cmd, timeout)
}

// Prewarm starts the sandbox helper the thread's commands run through, so
// the first exec_command does not wait ~130 ms for it. Only a local
// backend has one here (a host's exec-server runs its own).
func (x *execCommand) Prewarm(env *Env) {
	if env.Backend().Info().Host == "" {
		_ = sandbox.Prewarm(env.Sandbox, env.Cwd)
	}
}

// run runs command in dir under policy on the thread's backend; the
// writable roots come from the thread's cwd. The backend kills the
// command's whole tree when it ends, on a timeout or interrupt, and with
// grove.
func (x *execCommand) run(ctx context.Context, tenv *Env, policy protocol.SandboxPolicy, cwd, dir, command string, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	extra := []string{"GROVE_SANDBOX=" + string(policy.Mode), "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1", "TERM=dumb"}
	backend := tenv.Backend()
	if policy.Mode == protocol.SandboxWorkspaceWrite && backend.Info().Host == "" {
		// The temp dir the sandbox allows, even if a login profile set
		// another (a host's exec-server sets its own).
		extra = append(extra, "TMPDIR="+os.TempDir())
	}
	argv, env := shellCommand(command, extra...)
	out := &capBuffer{max: x.o.MaxOutputBytes}
	var sink io.Writer = out
	if tenv != nil && tenv.Emit != nil {
		live := newOutputStreamer(tenv.Emit, tenv.CallID, streamInterval)
		defer live.close() // after Wait: all output was copied
		// Shown live (TUI card, exec --json, app-server, ACP); out keeps
		// what the model gets.
		sink = io.MultiWriter(out, live)
	}
	if err := ctx.Err(); err != nil {
		// The turn ended (an interrupt, grove exec shutting down) before
		// the command started: it is not started only to be killed.
		return Result{Output: fmt.Sprintf("command was not run: %s before it started", stopCause(err)), IsError: true}
	}
	start := time.Now()
	proc, err := backend.Start(ctx, execenv.ExecRequest{Argv: argv, Cwd: cwd, Dir: dir, DirPin: pinOf(tenv), Env: env, Policy: policy, Output: sink})
	if err != nil {
		return Errorf("exec_command: %v", err)
	}
	code, err := proc.Wait()
	dur := time.Since(start)
	if errors.Is(err, execenv.ErrFateUnknown) {
		// The host stopped answering: neither "killed" nor an exit code
		// would be true.
		return Result{Output: fmt.Sprintf("%v\nWall time: %.2f seconds\nOutput so far:\n%s", err, dur.Seconds(), out.String()), IsError: true, Duration: dur}
	}
	killed := stopped(ctx, code, err)
	if err != nil && !killed {
		return Result{Output: fmt.Sprintf("exec_command: %v\n%s", err, out.String()), IsError: true, Duration: dur}
	}
	var b strings.Builder
	switch {
	case killed && errors.Is(ctx.Err(), context.DeadlineExceeded):
		fmt.Fprintf(&b, "command timed out after %s and was killed (exit code 124)\n", timeout)
		code = 124
	case killed:
		b.WriteString("command was interrupted and killed\n")
	}
	fmt.Fprintf(&b, "Exit code: %d\nWall time: %.2f seconds\nOutput:\n%s", code, dur.Seconds(), out.String())
	c := code
	return Result{
		Output: b.String(), ExitCode: &c, Duration: dur, IsError: killed,
		Summary: fmt.Sprintf("`%s` → exit %d (%.1fs)", clipCmd(command), code, dur.Seconds()),
	}
}

// stopped reports whether a command that ended with code (or err) was
// stopped because ctx ended. A command that exited by itself (a code below
// 128: no signal, the backends' shell convention) keeps its exit code even
// when ctx ended as it finished — grove exec shutting down while a
// sub-agent's command completes is no kill.
func stopped(ctx context.Context, code int, err error) bool {
	return ctx.Err() != nil && (err != nil || code < 0 || code >= 128)
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

// capBuffer keeps the head and the tail of a stream, dropping the middle.
type capBuffer struct {
	mu      sync.Mutex
	max     int
	head    bytes.Buffer
	tail    []byte
	dropped int
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	half := c.max / 2
	if room := half - c.head.Len(); room > 0 {
		k := min(room, len(p))
		c.head.Write(p[:k])
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - (c.max - half); over > 0 {
		c.dropped += over
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return n, nil
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped == 0 {
		return c.head.String() + string(c.tail)
	}
	return fmt.Sprintf("%s\n[… %d bytes truncated …]\n%s", c.head.String(), c.dropped, c.tail)
}

// pinOf is the thread's pinned working directory for this call, if any.
func pinOf(env *Env) *sandbox.DirPin {
	if env == nil {
		return nil
	}
	return env.Workdir
}
