package hooks

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// Issue 31 item 7: a reviewed hook that runs project code (`npm run
// lint`, `make test`) ran the model's code outside the sandbox once the
// model had edited package.json or the Makefile. And issue 36 item 4: a
// hook's process group outlived grove's kill -9. Both are answered by
// running every hook the way the agent's commands run: through the
// sandbox helper (core/sandbox), under the session's sandbox unless the
// user said `grove_sandbox = "none"` for that hook — and then still
// through the helper, unconfined, for its supervision: a new session
// without a terminal, the whole tree killed at the timeout, an interrupt,
// or when grove dies (the helper watches grove through a pidfd and a
// parent-death signal; the command is PID 1 of its own PID namespace, or
// the helper its subreaper).

// stopGrace is how long a stopped hook's tree has before it is killed.
const stopGrace = 2 * time.Second

// policyFor is the sandbox hook h runs in.
func (r *Runner) policyFor(h Hook) protocol.SandboxPolicy {
	if h.Unsandboxed {
		return protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}
	}
	if r.opts.Sandbox.Mode == "" {
		return protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	}
	return r.opts.Sandbox
}

// hookRun is one started hook: its output pipes drain into stdout and
// stderr; wait returns its exit code once it ended and they are read.
type hookRun struct {
	proc    *sandbox.Process
	drained chan struct{}
	readers []*os.File
}

// startHook starts argv in cwd under policy with stdin, its stdout and
// stderr copied (bounded by the writers) apart.
func startHook(policy protocol.SandboxPolicy, cwd string, argv, env []string, stdin []byte, stdout, stderr io.Writer) (*hookRun, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("hook stdout: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		_, _ = outR.Close(), outW.Close()
		return nil, fmt.Errorf("hook stderr: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		_, _, _, _ = outR.Close(), outW.Close(), errR.Close(), errW.Close()
		return nil, fmt.Errorf("hook stdin: %w", err)
	}
	go func() { // the event; ends when written or the hook closed its stdin
		_, _ = inW.Write(stdin)
		_ = inW.Close()
	}()
	proc, err := sandbox.Start(sandbox.StartRequest{Policy: policy, Cwd: cwd, Argv: argv, Env: env, Stdin: inR, Out: outW, Err: errW})
	_, _, _ = inR.Close(), outW.Close(), errW.Close() // the hook holds its copies
	if err != nil {
		_, _ = outR.Close(), errR.Close()
		return nil, err
	}
	run := &hookRun{proc: proc, drained: make(chan struct{}), readers: []*os.File{outR, errR}}
	copied := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(stdout, outR); copied <- struct{}{} }()
	go func() { _, _ = io.Copy(stderr, errR); copied <- struct{}{} }()
	go func() { <-copied; <-copied; close(run.drained) }()
	return run, nil
}

// wait waits for the hook, stopping its tree when ctx ends, and returns
// its exit code (128+N for signal N) once its output is read.
func (h *hookRun) wait(ctx context.Context) (int, error) {
	type exit struct {
		code int
		err  error
	}
	done := make(chan exit, 1)
	go func() {
		code, err := h.proc.Wait()
		done <- exit{code, err}
	}()
	var e exit
	select {
	case e = <-done:
	case <-ctx.Done():
		_ = h.proc.Stop()
		select {
		case e = <-done:
		case <-time.After(stopGrace):
			h.proc.Kill()
			e = <-done
		}
	}
	// The helper takes the hook's whole tree down when it ends, so the
	// pipes close; a bound all the same, so no hook holds the agent.
	select {
	case <-h.drained:
	case <-time.After(stopGrace):
		for _, f := range h.readers {
			_ = f.Close()
		}
		<-h.drained
	}
	for _, f := range h.readers {
		_ = f.Close()
	}
	return e.code, e.err
}
