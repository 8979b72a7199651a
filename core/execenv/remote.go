package execenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/rpc"
)

// Transport is a byte stream to an exec-server: its stdin and stdout.
// Close ends it (and the process behind it) and waits for that.
type Transport interface {
	io.Reader
	io.Writer
	Close() error
	// Why explains a failed or dropped stream (what ssh said), if known.
	Why() string
}

// Dial opens a transport to the server.
type Dial func(ctx context.Context) (Transport, error)

// Remote is a Backend on another machine, reached through a transport to
// its `grove exec-server`. The connection is opened on first use, and
// again on the next call after it dropped; a call in flight when it drops
// fails with an error naming the host.
type Remote struct {
	host string
	dial Dial

	mu    sync.Mutex
	cur   *session
	times LinkTimes
	// lost are sessions that ended with commands in flight; notice is what
	// reaping them found, told with the next command's output.
	lost   []lostSession
	notice string
}

// NewRemote returns the backend of the host called name.
func NewRemote(name string, dial Dial) *Remote {
	return &Remote{host: name, dial: dial, times: DefaultLinkTimes}
}

// SetLinkTimes changes the keep-alive and kill bounds (for the next
// connection; tests shorten them).
func (r *Remote) SetLinkTimes(t LinkTimes) {
	r.mu.Lock()
	r.times = t
	r.mu.Unlock()
}

// Connect opens the connection now (or checks the open one) and returns
// the host's handshake: grove checks a host before the first model call.
func (r *Remote) Connect(ctx context.Context) (Info, error) {
	s, err := r.session(ctx)
	if err != nil {
		return Info{}, err
	}
	return Info{Host: r.host, Sandbox: s.info.Sandbox}, nil
}

// Info reports the host; the sandbox is known once connected.
func (r *Remote) Info() Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := Info{Host: r.host}
	if r.cur != nil {
		i.Sandbox = r.cur.info.Sandbox
	}
	return i
}

// Close drops the connection (the server then kills what it started).
func (r *Remote) Close() error {
	r.mu.Lock()
	s := r.cur
	r.cur = nil
	r.mu.Unlock()
	if s == nil {
		return nil
	}
	s.fail(errors.New("closed"))
	return nil
}

// session returns the live session, connecting when there is none.
func (r *Remote) session(ctx context.Context) (*session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil && r.cur.alive() {
		return r.cur, nil
	}
	t, err := r.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", r.host, err)
	}
	s := newSession(r.host, t, r.addLost)
	var res initializeResult
	if err := s.call(ctx, mInitialize, initializeParams{Version: ProtocolVersion, Session: s.token}, &res); err != nil {
		s.fail(err)
		return nil, fmt.Errorf("host %s: exec-server handshake: %w", r.host, err)
	}
	s.info = res
	r.cur = s
	if r.times.KeepAlive > 0 {
		go s.keepAlive(r.times)
	}
	if len(r.lost) > 0 {
		r.notice += s.reapLost(ctx, r.lost)
		r.lost = nil
	}
	return s, nil
}

// addLost remembers a session that ended with commands in flight.
func (r *Remote) addLost(l lostSession) {
	r.mu.Lock()
	r.lost = append(r.lost, l)
	r.mu.Unlock()
}

// takeNotice returns (once) what the last reconnect found.
func (r *Remote) takeNotice() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.notice
	r.notice = ""
	return n
}

// session is one connection: the calls waiting for an answer (its
// rpc.Conn's) and the commands running. fail ends it.
type session struct {
	host   string
	t      Transport
	token  string // names this connection on the host (exec/reap)
	info   initializeResult
	conn   *rpc.Conn
	next   atomic.Uint64 // command ids (chosen by the client)
	onLost func(lostSession)

	mu    sync.Mutex
	procs map[uint64]*remoteProcess
	err   error // set once the session is dead
	done  chan struct{}
}

// newSession starts reading t: answers go to the calls, a command's output
// and exit to the command, on the reading goroutine and in order. Lines
// are written by one goroutine, so a write that blocks on a stalled link
// holds that goroutine only, never a caller past its deadline.
func newSession(host string, t Transport, onLost func(lostSession)) *session {
	s := &session{host: host, t: t, token: uuid.NewString(), onLost: onLost, procs: map[uint64]*remoteProcess{}, done: make(chan struct{})}
	out := rpc.NewWriter(t, rpc.WriterOptions{Queued: true, OnError: s.fail})
	m := rpc.NewMethods()
	rpc.HandleNotification(m, nOutput, func(_ context.Context, p outputParams) {
		if pr := s.proc(p.PID, false); pr != nil && pr.out != nil {
			_, _ = pr.out.Write(p.Data)
		}
	})
	rpc.HandleNotification(m, nExit, func(_ context.Context, p exitParams) {
		if pr := s.proc(p.PID, true); pr != nil {
			var err error
			if p.Error != "" {
				err = errors.New(p.Error)
			}
			pr.finish(p.Code, err, p.Denied)
		}
	})
	s.conn = rpc.NewConn(t, out, m, rpc.Options{MaxLine: maxLine})
	go func() {
		err := s.conn.Serve(context.Background())
		var tl *rpc.TooLongError
		var pe *rpc.ParseError
		switch {
		case err == nil:
			err = io.EOF
		case errors.As(err, &tl), errors.As(err, &pe):
			err = fmt.Errorf("bad message from the exec-server: %w", err)
		}
		s.fail(err)
	}()
	return s
}

func (s *session) alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err == nil
}

func (s *session) proc(pid uint64, remove bool) *remoteProcess {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.procs[pid]
	if remove {
		delete(s.procs, pid)
	}
	return p
}

// fail ends the session: every waiting call and running command gets an
// error naming the host and what the transport said; a command in flight
// is reported with its fate unknown, and remembered so the next
// connection kills what is left of it.
func (s *session) fail(cause error) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	var le *linkError
	if errors.As(cause, &le) {
		s.err = cause // the transport is stalled: asking it why would wait
	} else {
		msg := cause.Error()
		if errors.Is(cause, io.EOF) || errors.Is(cause, os.ErrClosed) {
			msg = "connection closed"
		}
		if why := s.t.Why(); why != "" {
			msg += ": " + why
		}
		s.err = fmt.Errorf("connection to host %s lost (%s)", s.host, msg)
	}
	procs := s.procs
	s.procs = map[uint64]*remoteProcess{}
	close(s.done)
	s.mu.Unlock()
	s.conn.Close(s.err) // every call waiting for an answer returns s.err
	if len(procs) > 0 && s.onLost != nil {
		l := lostSession{token: s.token}
		for _, p := range procs {
			l.commands = append(l.commands, p.desc)
		}
		s.onLost(l)
	}
	for _, p := range procs {
		p.finish(-1, &fateError{cause: s.err}, false)
	}
	// Last: closing may wait (at most 5 s) for ssh to exit, and the
	// callers above need not.
	_ = s.t.Close()
}

// call sends a request and decodes its answer into res; the server's
// error keeps its kind (errors.Is(err, fs.ErrNotExist)).
func (s *session) call(ctx context.Context, method string, params, res any) error {
	err := s.conn.Call(ctx, method, params, res)
	var re *rpc.Error
	if errors.As(err, &re) {
		return &remoteError{*re}
	}
	return err
}

// remoteProcess is a command running on the host.
type remoteProcess struct {
	s    *session // the connection it runs on
	pid  uint64
	desc string // the command, for a report after a lost connection
	out  io.Writer
	once sync.Once
	done chan struct{}
	code int
	err  error
	// denied: the host's backend saw a refusal of its sandbox.
	denied bool
}

func (p *remoteProcess) finish(code int, err error, denied bool) {
	p.once.Do(func() {
		p.code, p.err, p.denied = code, err, denied
		close(p.done)
	})
}

func (p *remoteProcess) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

// SandboxDenied implements DenialReporter: the host's answer.
func (p *remoteProcess) SandboxDenied() bool {
	<-p.done
	return p.denied
}

// Start starts the command on the host; when ctx ends the host kills its
// whole tree, and a dropped connection ends Wait with an error.
func (r *Remote) Start(ctx context.Context, req ExecRequest) (Process, error) {
	s, err := r.session(ctx)
	if err != nil {
		return nil, err
	}
	if n := r.takeNotice(); n != "" && req.Output != nil {
		_, _ = io.WriteString(req.Output, n)
	}
	pid := s.next.Add(1)
	p := &remoteProcess{desc: strings.Join(req.Argv, " "), out: req.Output, done: make(chan struct{}), s: s, pid: pid}
	s.mu.Lock()
	s.procs[pid] = p
	s.mu.Unlock()
	if err := s.call(ctx, mExecStart, execStartParams{PID: pid, ExecRequest: req}, nil); err != nil {
		s.proc(pid, true)
		return nil, err
	}
	r.mu.Lock()
	grace := r.times.KillGrace
	r.mu.Unlock()
	go s.own(ctx, pid, p, grace)
	return p, nil
}

// own ends with the command or the session; when ctx ends first it asks
// the host to kill the command and waits grace for the exit notice. No
// notice by then: the link is dead, and the command's fate unknown.
func (s *session) own(ctx context.Context, pid uint64, p *remoteProcess, grace time.Duration) {
	select {
	case <-p.done:
		return
	case <-s.done:
		return
	case <-ctx.Done():
	}
	kctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	_ = s.call(kctx, mExecKill, pidParams{PID: pid}, nil)
	select {
	case <-p.done:
	case <-s.done:
	case <-kctx.Done():
		s.linkDead(fmt.Sprintf("no answer %s after asking it to kill a command", grace))
	}
}

// Stat, ReadDir, Walk and ApplyPatch are one call each.
func (r *Remote) Stat(ctx context.Context, path string) (FileInfo, error) {
	var fi FileInfo
	err := r.do(ctx, mStat, pathParams{Path: path}, &fi)
	return fi, err
}

func (r *Remote) ReadDir(ctx context.Context, path string) ([]DirEntry, error) {
	var des []DirEntry
	err := r.do(ctx, mReadDir, pathParams{Path: path}, &des)
	return des, err
}

func (r *Remote) Walk(ctx context.Context, root string, max int) (WalkResult, error) {
	var w WalkResult
	err := r.do(ctx, mWalk, walkParams{Root: root, Max: max}, &w)
	return w, err
}

func (r *Remote) ApplyPatch(ctx context.Context, req PatchRequest) (PatchResult, error) {
	var res PatchResult
	err := r.do(ctx, mPatch, req, &res)
	return res, err
}

func (r *Remote) do(ctx context.Context, method string, params, res any) error {
	s, err := r.session(ctx)
	if err != nil {
		return err
	}
	return s.call(ctx, method, params, res)
}

// Open opens the file on the host; reads fetch it in chunks.
func (r *Remote) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	s, err := r.session(ctx)
	if err != nil {
		return nil, err
	}
	var h handleParams
	if err := s.call(ctx, mOpen, pathParams{Path: path}, &h); err != nil {
		return nil, err
	}
	return &remoteFile{s: s, ctx: ctx, h: h}, nil
}

// remoteFile reads a file of the host chunk by chunk.
type remoteFile struct {
	s   *session
	ctx context.Context
	h   handleParams
	buf []byte
	eof bool
}

func (f *remoteFile) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.eof {
			return 0, io.EOF
		}
		var res readResult
		if err := f.s.call(f.ctx, mRead, f.h, &res); err != nil {
			return 0, err
		}
		f.buf, f.eof = res.Data, res.EOF
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

func (f *remoteFile) Close() error {
	return f.s.call(context.WithoutCancel(f.ctx), mClose, f.h, nil)
}

// remoteProcess's input: a session's typed input and interrupts go to the
// host's exec-server, which hands them to its command.
func (p *remoteProcess) WriteInput(b []byte) error {
	return p.input(mExecWrite, b)
}

// Interrupt asks the host to send SIGINT to the command's group.
func (p *remoteProcess) Interrupt() error { return p.input(mExecInterrupt, nil) }

func (p *remoteProcess) input(method string, b []byte) error {
	if p.s == nil {
		return errors.New("not started")
	}
	if !p.s.info.Sessions {
		return fmt.Errorf("host %s runs an older grove whose exec-server takes no input for a running command; install this grove version there", p.s.host)
	}
	return p.s.call(context.Background(), method, writeParams{PID: p.pid, Data: b}, nil)
}
