package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// MaxOutput bounds what is kept of a hook's stdout and of its stderr.
const MaxOutput = 64 << 10

// Options configure a Runner.
type Options struct {
	// Env returns the environment hooks start from: grove's own,
	// scrubbed of secrets like every command's. Nil: an empty one.
	Env func() []string
	// ProjectDir is exported to hooks as CLAUDE_PROJECT_DIR (the
	// variable Claude Code's hook files use to find their scripts).
	ProjectDir string
	// Sandbox is the policy hooks run under (the session's); a hook the
	// user marked `grove_sandbox = "none"` runs outside it. Zero:
	// workspace-write in the session's cwd.
	Sandbox protocol.SandboxPolicy
	// Shell runs each command as `<Shell> -c <command>` ($SHELL, else
	// /bin/sh). Codex passes -lc; grove's Env is already the login
	// environment (the snapshot exec_command uses), so the profile is not
	// re-run for every hook.
	Shell string
}

// Runner runs the active hooks. A nil *Runner has no hooks: every event
// method returns at once, so call sites need no check.
type Runner struct {
	hooks []Hook
	opts  Options
	// async hooks run after the call that fired them returned; the Runner
	// owns them and Close stops and waits for them.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewRunner returns a Runner for hooks (the active ones, see Set.Active).
func NewRunner(hooks []Hook, opts Options) *Runner {
	if opts.Shell == "" {
		opts.Shell = os.Getenv("SHELL")
	}
	if opts.Shell == "" {
		opts.Shell = "/bin/sh"
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Runner{hooks: hooks, opts: opts, ctx: ctx, cancel: cancel}
}

// Hooks returns the hooks the runner runs.
func (r *Runner) Hooks() []Hook {
	if r == nil {
		return nil
	}
	return r.hooks
}

// Close kills async hooks still running and waits for them.
func (r *Runner) Close() {
	if r == nil {
		return
	}
	r.cancel()
	r.wg.Wait()
}

// result is one handler's run.
type result struct {
	hook     Hook
	exitCode int // -1: none (killed, failed to start)
	stdout   string
	stderr   string
	err      error
	duration time.Duration
	order    int // completion order among one event's hooks
}

// run starts every hook of ev whose matcher selects one of inputs, all at
// once (matching hooks run concurrently, as in Codex), and returns the
// synchronous ones' results in declaration order.
func (r *Runner) run(ctx context.Context, ev Event, inputs []string, stdin []byte, cwd string) []result {
	if r == nil {
		return nil
	}
	var sync_ []Hook
	for _, h := range r.hooks {
		if h.Event != ev || !matches(h.Matcher, inputs) {
			continue
		}
		if h.Async {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.runOne(r.ctx, h, stdin, cwd)
			}()
			continue
		}
		sync_ = append(sync_, h)
	}
	out := make([]result, len(sync_))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, h := range sync_ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := r.runOne(ctx, h, stdin, cwd)
			mu.Lock()
			res.order, done = done, done+1
			mu.Unlock()
			out[i] = res
		}()
	}
	wg.Wait()
	return out
}

// runOne runs one command with the event on stdin through the sandbox
// helper (proc.go), its tree killed at its timeout or when ctx ends, with
// the scrubbed environment.
func (r *Runner) runOne(ctx context.Context, h Hook, stdin []byte, cwd string) result {
	start := time.Now()
	if h.Scope != ScopeManaged && filesHash(h.Files) != h.FilesHash {
		// A file it runs changed since it was reviewed and discovered:
		// a sandboxed command may have rewritten it (files.go).
		return result{hook: h, exitCode: -1, err: fmt.Errorf("not run: %s changed since the hook was reviewed (review it again with `grove hooks trust`)", strings.Join(h.Files, ", "))}
	}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	var env []string
	if r.opts.Env != nil {
		env = r.opts.Env()
	}
	if r.opts.ProjectDir != "" {
		env = append(env, "CLAUDE_PROJECT_DIR="+r.opts.ProjectDir)
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	stdout, stderr := &boundedBuffer{max: MaxOutput}, &boundedBuffer{max: MaxOutput}
	res := result{hook: h, exitCode: -1}
	// In the session's working directory, as Codex; the sandbox's
	// writable roots come from it too.
	run, err := startHook(r.policyFor(h), cwd, []string{r.opts.Shell, "-c", h.Command}, env, stdin, stdout, stderr)
	if err != nil {
		res.err = fmt.Errorf("hook not started: %w", err)
		res.duration = time.Since(start)
		return res
	}
	code, err := run.wait(ctx)
	res.stdout, res.stderr, res.duration = stdout.String(), stderr.String(), time.Since(start)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.err = fmt.Errorf("hook timed out after %s", h.Timeout)
	case ctx.Err() != nil:
		res.err = errors.New("hook cancelled: the turn was interrupted")
	case err != nil:
		res.err = err
	default:
		res.exitCode = code
	}
	// The debug log keeps every run (never the hook's output: it may
	// carry what the hook read).
	logging.L().Info("hook ran", "event", string(h.Event), "command", h.Command, "file", h.File,
		"exit", res.exitCode, "err", errString(res.err), "duration_ms", res.duration.Milliseconds())
	return res
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// boundedBuffer keeps the first max bytes written and counts the rest.
type boundedBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if room >= len(p) {
		return b.buf.Write(p)
	}
	if room > 0 {
		b.buf.Write(p[:room])
	}
	b.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	if b.dropped == 0 {
		return b.buf.String()
	}
	return fmt.Sprintf("%s\n[hook output truncated: %d bytes dropped]", b.buf.String(), b.dropped)
}
