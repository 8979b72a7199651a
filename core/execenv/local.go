package execenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/grovecli/grove/core/sandbox"
)

// copyBuffer is the read size of a command's output: a chatty command
// (a build log, a 100 MB dump) is copied in few large steps.
const copyBuffer = 256 << 10

// stopGrace is how long a stopped command's helper has to take its tree
// down before it is killed itself.
const stopGrace = 2 * time.Second

// Local runs on this machine, every command under core/sandbox (the pool
// helper, Landlock, seccomp, namespaces).
type Local struct{}

// NewLocal returns the backend of this machine.
func NewLocal() Backend { return Local{} }

// Info reports this machine's sandbox.
func (Local) Info() Info { return Info{Sandbox: LocalCapabilities()} }

// LocalCapabilities probes this machine's sandbox features.
func LocalCapabilities() Capabilities {
	c := Capabilities{OS: runtime.GOOS, Namespaces: sandbox.NamespacesAvailable(), Seccomp: runtime.GOOS == "linux"}
	abi, err := sandbox.Supported()
	if err != nil {
		c.Error = err.Error()
	}
	c.Landlock = abi
	return c
}

// localProcess is a command started by Local.Start.
type localProcess struct {
	proc *sandbox.Process
	tty  *os.File // the pseudo-terminal's master (TTY); nil otherwise
	done chan struct{}
	code int
	err  error
	// denials watched the output for the sandbox's refusals.
	denials *sandbox.DenialWatch
}

func (p *localProcess) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

// SandboxDenied implements DenialReporter.
func (p *localProcess) SandboxDenied() bool {
	<-p.done
	return p.err == nil && p.denials.Denied(p.code)
}

// WriteInput types p on the command's terminal. A Ctrl+C in it (with the
// terminal's signal keys on) is followed up for a command that is the
// first process of its PID namespace: see sandbox.Process.InterruptInit.
func (p *localProcess) WriteInput(b []byte) error {
	if p.tty == nil {
		return ErrNoTerminal
	}
	select {
	case <-p.done:
		return errors.New("the process has exited")
	default:
	}
	if _, err := p.tty.Write(b); err != nil {
		return fmt.Errorf("write to the terminal: %w", err)
	}
	if bytes.IndexByte(b, 0x03) >= 0 && signalKeysOn(p.tty) {
		return p.proc.InterruptInit()
	}
	return nil
}

// Interrupt sends SIGINT to the command's process group.
func (p *localProcess) Interrupt() error {
	select {
	case <-p.done:
		return errors.New("the process has exited")
	default:
	}
	return p.proc.Interrupt()
}

// Start runs the command under the sandbox helper: a new session without
// a controlling terminal (or with the pseudo-terminal grove made for it,
// TTY), its whole tree (also what left the process group) dies when it
// ends, when ctx ends, and with grove.
func (Local) Start(ctx context.Context, req ExecRequest) (Process, error) {
	// Our own pipe (an *os.File goes to the child as is): the helper kills
	// the tree when the command exits, so the pipe closes then instead of
	// waiting for background children that still hold the output open.
	if req.Dir != "" {
		// A working directory never widens the sandbox; refuse one outside
		// the workspace here, where the files are (a host's too).
		dir, err := sandbox.CheckWorkdir(req.Policy, req.Cwd, req.Dir)
		if err != nil {
			return nil, err
		}
		req.Dir = dir
	}
	if req.TTY {
		return startTTY(ctx, req)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	growPipe(pw)
	stdin, err := stdinFile(req.Stdin)
	if err != nil {
		_, _ = pr.Close(), pw.Close()
		return nil, err
	}
	proc, err := sandbox.Start(sandbox.StartRequest{
		Policy: req.Policy, Cwd: req.Cwd, Dir: req.Dir, DirPin: req.DirPin, Argv: req.Argv, Env: req.Env, Stdin: stdin, Out: pw,
	})
	_ = pw.Close() // the child holds its copy
	if stdin != nil {
		_ = stdin.Close()
	}
	if err != nil {
		_ = pr.Close()
		return nil, err
	}
	return follow(ctx, proc, pr, nil, sandbox.WatchDenials(req.Policy, req.Output)), nil
}

// follow owns a started command: it copies its output from r to out and
// ends when the command does, killing the tree first when ctx ends.
func follow(ctx context.Context, proc *sandbox.Process, r, tty *os.File, out *sandbox.DenialWatch) *localProcess {
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		// A terminal's master reads EIO once the last slave is closed:
		// that is its end of file.
		// Plain reads (not File.WriteTo's 32 KiB) into one large buffer.
		_, _ = io.CopyBuffer(out, struct{ io.Reader }{r}, make([]byte, copyBuffer))
	}()
	exited := make(chan struct{})
	p := &localProcess{proc: proc, tty: tty, done: make(chan struct{}), denials: out}
	go func() {
		defer close(exited)
		p.code, p.err = proc.Wait()
	}()
	// The owner of the command: it ends when the command does, killing the
	// tree first when ctx ends.
	go func() {
		select {
		case <-exited:
		case <-ctx.Done():
			_ = proc.Stop()
			select {
			case <-exited:
			case <-time.After(stopGrace):
				proc.Kill()
				<-exited
			}
		}
		<-copied
		_ = r.Close()
		close(p.done)
	}()
	return p
}

// stdinFile turns input bytes into a file the child can read: a pipe fed
// by a goroutine that ends when the bytes are written or the reader is gone.
func stdinFile(b []byte) (*os.File, error) {
	if b == nil {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	go func() {
		_, _ = w.Write(b)
		_ = w.Close()
	}()
	return r, nil
}
