package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/protocol"
)

// Session is one command kept running by a SessionManager. Its output
// collects between reads (at most sessionBufferBytes, head and tail);
// Read drains it.
type Session struct {
	id      int
	owner   protocol.ThreadID
	command string
	tty     bool
	started time.Time
	mgr     *SessionManager
	cancel  context.CancelFunc // kills the process tree
	timeout time.Duration
	// reading serializes reads: two calls polling one session in parallel
	// each get their own part of the output, in order.
	reading sync.Mutex

	mu       sync.Mutex
	proc     execenv.Process
	buf      headTail
	notify   chan struct{} // closed (and replaced) when output arrives
	lastUsed time.Time
	exited   bool
	timedOut bool
	code     int
	denied   bool // the backend saw a refusal of the sandbox (execenv.SandboxDenied)
	err      error
	done     chan struct{} // closed once the process ended and all its output is in
}

func newSession(req SessionRequest, cancel context.CancelFunc) *Session {
	now := time.Now()
	return &Session{
		owner: req.Owner, command: req.Command, tty: req.Exec.TTY, started: now, lastUsed: now, timeout: req.Timeout,
		cancel: cancel, buf: headTail{max: sessionBufferBytes},
		notify: make(chan struct{}), done: make(chan struct{}),
	}
}

// ID is the session's id (write_stdin's session_id).
func (s *Session) ID() int { return s.id }

// Owner is the agent the session belongs to.
func (s *Session) Owner() protocol.ThreadID { return s.owner }

// Info describes the session.
func (s *Session) Info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SessionInfo{ID: s.id, Owner: s.owner, Command: s.command, TTY: s.tty, Started: s.started,
		LastUsed: s.lastUsed, Exited: s.exited, ExitCode: s.code}
}

// Done is closed once the process ended and all its output arrived.
func (s *Session) Done() <-chan struct{} { return s.done }

// Write receives the process's output (the backend's single copier).
func (s *Session) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.buf.write(p)
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
	return len(p), nil
}

// follow waits for the process; the session's goroutine, ended by the
// process's end (cancel kills it).
func (s *Session) follow(ctx context.Context, proc execenv.Process) {
	code, err := proc.Wait()
	denied := execenv.SandboxDenied(proc)
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	s.mu.Lock()
	s.exited, s.code, s.err, s.denied = true, code, err, denied
	if errors.Is(err, execenv.ErrFateUnknown) {
		// The host stopped answering: neither "killed" nor an exit code
		// would be true (main's exec_command said so; kept for sessions).
		s.buf.write([]byte("\n" + err.Error() + "\n"))
	}
	if timedOut {
		// timeout(1)'s convention, as grove's exec_command always had.
		s.code, s.timedOut = 124, true
		s.buf.write([]byte(fmt.Sprintf("\ncommand timed out after %s and was killed (exit code 124)\n", s.timeout)))
	}
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
	s.cancel()
	close(s.done)
}

// Chunk is what one Read collected.
type Chunk struct {
	// Output is the output since the previous read (head and tail of it
	// when more than the buffer arrived; Omitted counts the bytes lost).
	Output  []byte
	Omitted int
	// Exited says the process ended and Output is the last of it; the
	// session is then gone from its manager. ExitCode is the shell's
	// convention (128+N for signal N); Err is set when the process could
	// not be followed to its end (a lost host).
	Exited   bool
	ExitCode int
	Err      error
	// TimedOut says the session's Timeout killed it (ExitCode 124).
	TimedOut bool
	// SandboxDenied: the backend saw the command fail on a refusal of its
	// sandbox (execenv.SandboxDenied).
	SandboxDenied bool
}

// Read collects output until the deadline, or less when the process ends
// (then with its exit) or ctx ends (an interrupted turn). A deadline in
// the past drains what is there. Reading the exit removes the session.
// live, when not nil, receives the output as this read collects it (what
// arrived before the read too: nothing is shown twice or skipped).
func (s *Session) Read(ctx context.Context, deadline time.Time, live io.Writer) Chunk {
	s.reading.Lock()
	defer s.reading.Unlock()
	var c Chunk
	// What this read collected, bounded like the session's buffer: a
	// command printing gigabytes during one long wait costs no memory.
	got := headTail{max: sessionBufferBytes}
	collect := func() {
		s.mu.Lock()
		out, omitted := s.buf.drain()
		s.mu.Unlock()
		got.write(out)
		c.Omitted += omitted
		if live != nil && len(out) > 0 {
			_, _ = live.Write(out)
		}
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		// The channel is taken before draining: output arriving after the
		// drain closes it, so nothing waits unseen until the deadline.
		s.mu.Lock()
		notify, exited := s.notify, s.exited
		s.mu.Unlock()
		collect()
		if exited {
			<-s.done
			collect()
			s.mu.Lock()
			c.Exited, c.ExitCode, c.Err, c.TimedOut, c.SandboxDenied = true, s.code, s.err, s.timedOut, s.denied
			s.mu.Unlock()
			if s.mgr != nil {
				s.mgr.remove(s)
			}
			break
		}
		select {
		case <-notify:
			continue
		case <-timer.C:
		case <-ctx.Done():
		}
		break
	}
	out, omitted := got.drain()
	c.Output, c.Omitted = out, c.Omitted+omitted
	return c
}

// WriteInput types p on the session's terminal (tty sessions only).
func (s *Session) WriteInput(p []byte) error {
	s.touch()
	proc, ok := s.process().(execenv.Interactive)
	if !ok {
		return errors.New("this host's exec-server cannot write to a running command")
	}
	return proc.WriteInput(p)
}

// Interrupt sends SIGINT to the session's process group (Ctrl+C).
func (s *Session) Interrupt() error {
	proc, ok := s.process().(execenv.Interactive)
	if !ok {
		// A backend that cannot signal: the interrupt ends it.
		s.cancel()
		return nil
	}
	return proc.Interrupt()
}

// stop interrupts the session and kills its tree if it has not ended
// interruptGrace later; it returns once the process is gone.
func (s *Session) stop() {
	if s.process() == nil {
		s.cancel()
		return
	}
	_ = s.Interrupt()
	select {
	case <-s.done:
	case <-time.After(interruptGrace):
		s.kill()
	}
}

// Close kills the session's process tree and forgets it.
func (s *Session) Close() {
	if s.mgr != nil {
		s.mgr.remove(s)
	}
	s.kill()
}

// kill ends the process tree and waits for it (the backend escalates to
// SIGKILL itself).
func (s *Session) kill() {
	s.cancel()
	if s.process() != nil {
		<-s.done
	}
}

func (s *Session) process() execenv.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

func (s *Session) touch() {
	s.mu.Lock()
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

func (s *Session) lastUsedAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed
}

func (s *Session) hasExited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exited
}

// headTail keeps the first and the last max/2 bytes written since the
// last drain, counting what it dropped in between. The tail is a ring
// once full, so a command printing gigabytes costs no copying; memory
// grows with the output actually held.
type headTail struct {
	max     int
	head    []byte
	tail    []byte
	pos     int // oldest byte of a full tail
	omitted int
}

func (b *headTail) write(p []byte) {
	half := b.max / 2
	if room := half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	capTail := b.max - half
	if room := capTail - len(b.tail); room > 0 {
		k := min(room, len(p))
		b.tail = append(b.tail, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return
	}
	// Full: every byte written pushes out the oldest one.
	b.omitted += len(p)
	if len(p) >= capTail {
		copy(b.tail, p[len(p)-capTail:])
		b.pos = 0
		return
	}
	n := copy(b.tail[b.pos:], p)
	copy(b.tail, p[n:])
	b.pos = (b.pos + len(p)) % capTail
}

// keepCapacity is how much of its buffers a drained headTail keeps for
// the next output: a busy session does not reallocate on every read, an
// idle one holds little.
const keepCapacity = 64 << 10

// drain returns what was kept, in order, and resets.
func (b *headTail) drain() ([]byte, int) {
	out := make([]byte, 0, len(b.head)+len(b.tail))
	out = append(out, b.head...)
	out = append(out, b.tail[b.pos:]...)
	out = append(out, b.tail[:b.pos]...)
	n := b.omitted
	b.head, b.tail, b.pos, b.omitted = reuse(b.head), reuse(b.tail), 0, 0
	return out, n
}

func reuse(b []byte) []byte {
	if cap(b) > keepCapacity {
		return nil
	}
	return b[:0]
}
