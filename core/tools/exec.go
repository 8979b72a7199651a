package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
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
	return model.ToolSpec{Name: "exec_command", Description: fmt.Sprintf("Run a shell command with `bash -lc` in the working directory (inside the sandbox). Returns the exit code, wall time and combined stdout/stderr (long output keeps its head and tail). Default timeout %s, max %s. Set sandbox_permissions to require_escalated (with a justification) only when the command truly needs to run outside the sandbox.", x.o.DefaultTimeout, x.o.MaxTimeout), Parameters: json.RawMessage(`{"type":"object","properties":{
"cmd":{"type":"string","description":"Shell command, run by bash -lc."},
"workdir":{"type":"string","description":"Directory to run in (default: the working directory)."},
"timeout_ms":{"type":"integer","minimum":1,"description":"Timeout in milliseconds."},
"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"]},
"justification":{"type":"string","description":"Why escalation is needed (shown to the user)."}
},"required":["cmd"],"additionalProperties":false}`)}
}

type execArgs struct {
	Cmd                string `json:"cmd"`
	Workdir            string `json:"workdir"`
	TimeoutMS          int64  `json:"timeout_ms"`
	SandboxPermissions string `json:"sandbox_permissions"`
	Justification      string `json:"justification"`
}

func (x *execCommand) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a execArgs
	if err := decode("exec_command", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return Errorf("exec_command: cmd is empty")
	}
	dir := resolvePath(env.Cwd, a.Workdir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return Errorf("exec_command: workdir %s is not a directory", dir)
	}
	timeout := x.o.DefaultTimeout
	if a.TimeoutMS > 0 {
		timeout = min(time.Duration(a.TimeoutMS)*time.Millisecond, x.o.MaxTimeout)
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
	res := x.run(ctx, policy, dir, a.Cmd, timeout)
	retryable := env.ApprovalPolicy == protocol.ApprovalOnFailure || env.ApprovalPolicy == protocol.ApprovalUntrusted
	if retryable && policy.Mode != protocol.SandboxDangerFullAccess && !res.IsError && looksLikeSandboxDenial(res) {
		req.Reason = "the command failed inside the sandbox (permission denied); run it again without the sandbox?"
		req.Sandbox = protocol.SandboxDangerFullAccess
		if r, ok := ask(ctx, env, req); !ok {
			r.Output = res.Output + "\n\n" + r.Output
			return r
		}
		return x.run(ctx, protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, dir, a.Cmd, timeout)
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

func (x *execCommand) run(ctx context.Context, policy protocol.SandboxPolicy, dir, command string, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	extra := []string{"GROVE_SANDBOX=" + string(policy.Mode), "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1", "TERM=dumb"}
	if policy.Mode == protocol.SandboxWorkspaceWrite {
		// The temp dir the sandbox allows, even if a login profile set another.
		extra = append(extra, "TMPDIR="+os.TempDir())
	}
	argv, env := shellCommand(command, extra...)
	cmd, err := sandbox.Command(context.WithoutCancel(ctx), policy, dir, argv)
	if err != nil {
		return Errorf("exec_command: %v", err)
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin = nil
	// Our own pipe (an *os.File goes to the child as is): when the shell
	// exits, the group is killed at once instead of waiting for background
	// children that still hold the output open.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Errorf("exec_command: pipe: %v", err)
	}
	out := &capBuffer{max: x.o.MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		_ = pr.Close()
		_ = pw.Close()
		return Errorf("exec_command: start: %v", err)
	}
	_ = pw.Close() // the child holds its copy
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	killed := false
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		killed = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		waitErr = <-done
	}
	// Reap anything the command left running in its group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		// A process that left the group (setsid) still holds the pipe.
	}
	_ = pr.Close()
	<-copied
	dur := time.Since(start)
	code := exitCode(cmd.ProcessState)
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !killed {
		return Result{Output: fmt.Sprintf("exec_command: %v\n%s", waitErr, out.String()), IsError: true, Duration: dur}
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

// exitCode is the shell convention: the status, or 128+N for signal N.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
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
