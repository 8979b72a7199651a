package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// Claude Code's Bash limits: 2 minutes by default, 10 at most, output cut
// after 30 000 characters.
const (
	claudeBashDefault   = 2 * time.Minute
	claudeBashMax       = 10 * time.Minute
	claudeBashMaxOutput = 30000
)

// claudeBash runs commands the way Claude Code's Bash does: the working
// directory persists between calls (a `cd` carries over), shell state does
// not.
type claudeBash struct {
	mu   sync.Mutex
	dirs map[protocol.ThreadID]string // each thread's shell directory
}

func newClaudeBash() *claudeBash { return &claudeBash{dirs: map[protocol.ThreadID]string{}} }

// claudeBashArgs are Bash's arguments (Claude Code's names).
type claudeBashArgs struct {
	Command                   string `json:"command" required:"true" jsonschema:"The command to execute"`
	Timeout                   *int64 `json:"timeout" minimum:"0" jsonschema:"Optional timeout in milliseconds (max 600000)"`
	Description               string `json:"description" jsonschema:"Clear, concise description of what this command does in 5-10 words, in active voice."`
	RunInBackground           bool   `json:"run_in_background" jsonschema:"Set to true to run this command in the background. Use BashOutput to read the output later and TaskStop to stop it."`
	DangerouslyDisableSandbox bool   `json:"dangerouslyDisableSandbox" jsonschema:"Set this to true to ask the user to run the command outside the sandbox."`
}

const claudeBashDesc = `Executes a given bash command and returns its output.

The working directory persists between commands, but shell state does not. The shell environment is initialized from the user's profile.

IMPORTANT: This tool is for terminal operations like git, npm, docker, etc. DO NOT use it for file operations (reading, writing, editing, searching, finding files) - use the specialized tools for this instead (Read, Write, Edit, Glob, Grep).

Usage notes:
  - The command argument is required.
  - You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). If not specified, commands will timeout after 120000ms (2 minutes).
  - Write a clear, concise description of what this command does in 5-10 words.
  - If the output exceeds 30000 characters, output will be truncated before being returned to you.
  - You can use the run_in_background parameter to run the command in the background. You do not need to check the output right away; read it with BashOutput when you need it and stop the command with TaskStop.
  - Always quote file paths that contain spaces with double quotes.
  - Commands run inside grove's sandbox; set dangerouslyDisableSandbox only when a command truly needs to run outside it (the user is asked).
  - When issuing multiple commands, use ';' or '&&' to separate them, not newlines.`

func (*claudeBash) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeBash, Description: claudeBashDesc, Parameters: schema.MustObject(claudeBashArgs{})}
}

// args decodes the call and the directory it runs in.
func (b *claudeBash) args(env *Env, raw json.RawMessage) (claudeBashArgs, string, *Result) {
	var a claudeBashArgs
	if err := decode(ClaudeBash, raw, &a); err != nil {
		r := Errorf("%v", err)
		return a, "", &r
	}
	if strings.TrimSpace(a.Command) == "" {
		r := Errorf(`invalid arguments for Bash: field "command" must not be empty`)
		return a, "", &r
	}
	return a, b.dir(env), nil
}

// dir is the thread's shell directory, if it is still one the sandbox
// lets commands run in; else the thread's working directory.
func (b *claudeBash) dir(env *Env) string {
	b.mu.Lock()
	d := b.dirs[env.ThreadID]
	b.mu.Unlock()
	if d == "" || env.Backend().Info().Host != "" {
		return env.Cwd
	}
	if checked, err := sandbox.CheckWorkdir(env.Sandbox, env.Cwd, d); err == nil {
		return checked
	}
	return env.Cwd
}

// Gate describes the call for the orchestrator like exec_command's.
func (b *claudeBash) Gate(_ context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	a, dir, res := b.args(env, raw)
	if res != nil {
		return Gate{}, res
	}
	escalate := a.DangerouslyDisableSandbox
	return Gate{
		Kind:      GateExec,
		Request:   protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: a.Command, Cwd: dir, Reason: a.Description, Sandbox: env.Sandbox.Mode},
		Escalate:  escalate,
		KnownSafe: !escalate && IsKnownSafe(a.Command),
	}, nil
}

func (b *claudeBash) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	a, dir, res := b.args(env, raw)
	if res != nil {
		return *res
	}
	if a.RunInBackground {
		return startBackground(env, a.Command, dir)
	}
	timeout := claudeBashDefault
	if a.Timeout != nil && *a.Timeout > 0 {
		timeout = time.Duration(min(*a.Timeout, claudeBashMax.Milliseconds())) * time.Millisecond
	}
	return b.run(ctx, env, a.Command, dir, timeout)
}

// run runs command in dir and answers as Claude Code does: the output;
// "Error" for a failure without output; a timeout named first.
func (b *claudeBash) run(ctx context.Context, env *Env, command, dir string, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	marker := cwdMarker()
	script := command + "\n__grove_rc=$?\nprintf '\\n%s%s' '" + marker + "' \"$(pwd -P)\"\nexit $__grove_rc"
	extra := []string{"GROVE_SANDBOX=" + string(env.Sandbox.Mode), "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1", "TERM=dumb", "CLAUDECODE=1"}
	backend := env.Backend()
	if tmp := sandbox.WritableTempDir(env.Sandbox); tmp != "" && backend.Info().Host == "" {
		extra = append(extra, "TMPDIR="+tmp)
	}
	argv, environ := shellArgv("", !env.NoLoginShell, script, extra)
	out := &headBuffer{max: claudeBashMaxOutput}
	var sink io.Writer = out
	if env.Emit != nil {
		live := newOutputStreamer(env.Emit, env.CallID, streamInterval)
		defer live.close()
		sink = io.MultiWriter(out, live)
	}
	if err := ctx.Err(); err != nil {
		return Result{Output: "Command was not run: " + stopCause(err) + " before it started", IsError: true}
	}
	start := time.Now()
	proc, err := backend.Start(ctx, execenv.ExecRequest{Argv: argv, Cwd: env.Cwd, Dir: dir, Env: environ, Policy: env.Sandbox, Output: sink})
	if err != nil {
		return Errorf("Bash: %v", err)
	}
	code, err := proc.Wait()
	dur := time.Since(start)
	text, newDir, cut := out.result(marker)
	if newDir != "" {
		b.mu.Lock()
		b.dirs[env.ThreadID] = newDir
		b.mu.Unlock()
	}
	text = strings.TrimRight(text, "\n")
	if cut > 0 {
		text += fmt.Sprintf("\n\n... [%d lines truncated] ...", cut)
	}
	c := code
	res := Result{Output: text, ExitCode: &c, Duration: dur, SandboxDenied: execenv.SandboxDenied(proc), Summary: fmt.Sprintf("`%s` → exit %d (%.1fs)", clipCmd(command), code, dur.Seconds())}
	switch killed := stopped(ctx, code, err); {
	case killed && errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Output, res.IsError = strings.TrimSpace("Command timed out after "+claudeDuration(timeout)+" "+text), true
	case killed:
		res.Output, res.IsError = strings.TrimSpace("Command was interrupted and killed "+text), true
	case err != nil:
		res.Output, res.IsError = fmt.Sprintf("Bash: %v\n%s", err, text), true
	case code != 0:
		res.IsError = true
		if res.Output == "" {
			res.Output = "Error"
		}
	}
	return res
}

// stopped reports whether a command that ended with code (or err) was
// stopped because ctx ended: a command that exited by itself (a code below
// 128: no signal) keeps its exit code even when ctx ended as it finished.
func stopped(ctx context.Context, code int, err error) bool {
	return ctx.Err() != nil && (err != nil || code < 0 || code >= 128)
}

// cwdMarker is a fresh token that ends a command's output with the
// directory it ended in (the command cannot guess it).
func cwdMarker() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "__grove_cwd_" + hex.EncodeToString(b[:]) + "__"
}

// splitCwdMarker removes the marker line from output, returning the
// directory it named ("" when the command exited before printing it).
func splitCwdMarker(output, marker string) (string, string) {
	i := strings.LastIndex(output, "\n"+marker)
	if i < 0 {
		return output, ""
	}
	dir := strings.TrimSpace(output[i+1+len(marker):])
	if strings.ContainsAny(dir, "\n\x00") {
		return output, ""
	}
	return output[:i], dir
}

// claudeDuration formats a duration as Claude Code does: "5s", "2m 0.0s".
func claudeDuration(d time.Duration) string {
	if d < time.Minute {
		s := d.Seconds()
		if s == float64(int64(s)) {
			return fmt.Sprintf("%ds", int64(s))
		}
		return fmt.Sprintf("%.1fs", s)
	}
	m := int64(d / time.Minute)
	return fmt.Sprintf("%dm %.1fs", m, (d - time.Duration(m)*time.Minute).Seconds())
}

// headBuffer keeps the first max bytes written and counts the lines of
// the rest (Claude Code keeps the head of long output); the last bytes
// are kept too, for the directory marker that ends the output.
type headBuffer struct {
	mu           sync.Mutex
	max          int
	buf          []byte
	tail         []byte
	dropped      int
	droppedLines int
}

// headTailKeep is how much of the end a headBuffer keeps.
const headTailKeep = 8 << 10

// result is the output without the marker, the directory the marker
// named, and how many lines were cut from the end.
func (h *headBuffer) result(marker string) (text, dir string, cutLines int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped == 0 {
		text, dir = splitCwdMarker(string(h.buf), marker)
		return text, dir, 0
	}
	_, dir = splitCwdMarker(string(h.tail), marker)
	cutLines = h.droppedLines + 1
	if dir != "" {
		cutLines-- // the marker's own line
	}
	return string(h.buf), dir, cutLines
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := h.max - len(h.buf); room > 0 {
		k := min(room, len(p))
		h.buf = append(h.buf, p[:k]...)
		p = p[k:]
	}
	h.dropped += len(p)
	h.droppedLines += strings.Count(string(p), "\n")
	if len(p) > 0 {
		h.tail = append(h.tail, p...)
		if over := len(h.tail) - headTailKeep; over > 0 {
			h.tail = append(h.tail[:0], h.tail[over:]...)
		}
	}
	return n, nil
}
