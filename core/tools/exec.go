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

// stopGrace is how long a stopped command's helper has to take its tree
// down before it is killed itself.
const stopGrace = 2 * time.Second

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

func (x *execCommand) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a execArgs
	if err := decode("exec_command", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return Errorf("exec_command: cmd is empty")
	}
	dir, err := sandbox.CheckWorkdir(env.Sandbox, env.Cwd, a.Workdir)
	if err != nil {
		return Errorf("exec_command: %v", err)
	}
	timeout := x.o.DefaultTimeout
	if a.TimeoutMS > 0 {
		// Clamp in milliseconds first: a huge value would overflow the
		// Duration product and wrap negative (an instant timeout).
		timeout = time.Duration(min(a.TimeoutMS, x.o.MaxTimeout.Milliseconds())) * time.Millisecond
	}
	policy := env.Sandbox
	escalate := a.SandboxPermissions == "require_escalated"
	req := protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: a.Cmd, Cwd: dir, Reason: a.Justification, Sandbox: policy.Mode}

	switch env.ApprovalPolicy {
	case protocol.ApprovalNever:
		if escalate {
			return Errorf("exec_command: running outside the sandbox is not available (approval_policy = never); do the work within the %s sandbox", policy.Mode)
		}
	case protocol.ApprovalUntrusted:
		if escalate || !IsKnownSafe(a.Cmd) {
			if req.Reason == "" {
				req.Reason = "approval_policy is untrusted: every command that is not a known read-only one needs approval"
			}
			if escalate {
				req.Sandbox = protocol.SandboxDangerFullAccess
			}
			if res, ok := ask(ctx, env, req); !ok {
				return res
			}
			if escalate {
				policy = protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}
			}
		}
	default: // on-request, on-failure
		if escalate {
			if req.Reason == "" {
				req.Reason = "the model asks to run this outside the sandbox"
			}
			req.Sandbox = protocol.SandboxDangerFullAccess
			if res, ok := ask(ctx, env, req); !ok {
				return res
			}
			policy = protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}
		}
	}
	res := x.run(ctx, env, policy, env.Cwd, dir, a.Cmd, timeout)
	retryable := env.ApprovalPolicy == protocol.ApprovalOnFailure || env.ApprovalPolicy == protocol.ApprovalUntrusted
	if retryable && policy.Mode != protocol.SandboxDangerFullAccess && !res.IsError && looksLikeSandboxDenial(res) {
		req.Reason = "the command failed inside the sandbox (permission denied); run it again without the sandbox?"
		req.Sandbox = protocol.SandboxDangerFullAccess
		if r, ok := ask(ctx, env, req); !ok {
			r.Output = res.Output + "\n\n" + r.Output
			return r
		}
		return x.run(ctx, env, protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, env.Cwd, dir, a.Cmd, timeout)
	}
	return res
}

// ask returns (result, false) when the command must not run.
func ask(ctx context.Context, env *Env, req protocol.ApprovalRequest) (Result, bool) {
	if env.Approve == nil {
		return Errorf("exec_command: this command needs approval (approval_policy = %s) but no one can approve in this session; work within the sandbox or ask the user to run it", env.ApprovalPolicy), false
	}
	d, err := env.Approve(ctx, req)
	if err != nil {
		return Result{Output: fmt.Sprintf("exec_command: approval was not given: %v", err), IsError: true, Abort: ctx.Err() != nil}, false
	}
	switch d {
	case protocol.DecisionApproved, protocol.DecisionApprovedForSession:
		return Result{}, true
	case protocol.DecisionAbort:
		return Result{Output: "command rejected by user (aborted the turn)", IsError: true, Abort: true}, false
	}
	return Result{Output: "command rejected by user", IsError: true}, false
}

func looksLikeSandboxDenial(r Result) bool {
	if r.ExitCode == nil || *r.ExitCode == 0 {
		return false
	}
	for _, s := range []string{"Permission denied", "Operation not permitted", "Read-only file system"} {
		if strings.Contains(r.Output, s) {
			return true
		}
	}
	return false
}

// Prewarm starts the sandbox helper the thread's commands run through, so
// the first exec_command does not wait ~130 ms for it.
func (x *execCommand) Prewarm(env *Env) { _ = sandbox.Prewarm(env.Sandbox, env.Cwd) }

// run runs command in dir under policy; the writable roots come from the
// thread's cwd. The sandbox helper supervises the command: it runs in a
// new session without a controlling terminal, stdin from /dev/null, and
// its whole tree (also what left the process group) dies when it ends, on
// a timeout or interrupt, and with grove.
func (x *execCommand) run(ctx context.Context, tenv *Env, policy protocol.SandboxPolicy, cwd, dir, command string, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	extra := []string{"GROVE_SANDBOX=" + string(policy.Mode), "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1", "TERM=dumb"}
	if policy.Mode == protocol.SandboxWorkspaceWrite {
		// The temp dir the sandbox allows, even if a login profile set another.
		extra = append(extra, "TMPDIR="+os.TempDir())
	}
	argv, env := shellCommand(command, extra...)
	// Our own pipe (an *os.File goes to the child as is): the helper kills
	// the tree when the shell exits, so the pipe closes then instead of
	// waiting for background children that still hold the output open.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Errorf("exec_command: pipe: %v", err)
	}
	out := &capBuffer{max: x.o.MaxOutputBytes}
	start := time.Now()
	proc, err := sandbox.Start(policy, cwd, dir, argv, env, pw)
	_ = pw.Close() // the child holds its copy
	if err != nil {
		_ = pr.Close()
		return Errorf("exec_command: %v", err)
	}
	var sink io.Writer = out
	var live *outputStreamer
	if tenv != nil && tenv.Emit != nil {
		live = newOutputStreamer(tenv.Emit, tenv.CallID, streamInterval)
		defer live.close() // idempotent after the copy's close
	}
	if live != nil {
		// Shown live (TUI card, exec --json, app-server, ACP); out keeps
		// what the model gets.
		sink = io.MultiWriter(out, live)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(sink, pr)
		if live != nil {
			live.close()
		}
	}()
	type exit struct {
		code int
		err  error
	}
	done := make(chan exit, 1)
	go func() {
		code, err := proc.Wait()
		done <- exit{code, err}
	}()
	var ended exit
	killed := false
	select {
	case ended = <-done:
	case <-ctx.Done():
		killed = true
		_ = proc.Stop()
		select {
		case ended = <-done:
		case <-time.After(stopGrace):
			proc.Kill()
			ended = <-done
		}
	}
	<-copied
	_ = pr.Close()
	dur := time.Since(start)
	code := ended.code
	if ended.err != nil && !killed {
		return Result{Output: fmt.Sprintf("exec_command: %v\n%s", ended.err, out.String()), IsError: true, Duration: dur}
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

func clipCmd(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		return s[:57] + "…"
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
