package execenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/grovecli/grove/core/rpc"
)

// Serve speaks the exec-server protocol on in and out with backend (the
// host's Local) until in closes or ctx ends; then it kills every process
// it started, waits for them and returns.
func Serve(ctx context.Context, backend Backend, in io.Reader, out io.Writer) error {
	return ServeWith(ctx, backend, in, out, ServeOptions{})
}

// ServeOptions are a server's settings beyond its streams.
type ServeOptions struct {
	// StateDir keeps the record of each session's server and commands
	// (registry.go), so that a client's next connection can kill what a
	// lost one left running. Empty: no records, and exec/reap says so.
	StateDir string
}

// ServeWith is Serve with options.
func ServeWith(ctx context.Context, backend Backend, in io.Reader, out io.Writer, o ServeOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	// Lines are written as they come: the client's own keep-alive finds a
	// link that stopped carrying them.
	s := &server{b: backend, opts: o, out: rpc.NewWriter(out, rpc.WriterOptions{}), procs: map[uint64]context.CancelFunc{}, live: map[uint64]Process{}, files: map[uint64]io.ReadCloser{}}
	conn := rpc.NewConn(in, s.out, s.methods(), rpc.Options{MaxLine: maxLine, Guard: s.guard, WireError: toWire})
	err := conn.Serve(ctx)
	cancel() // every process's context: the backend kills their trees
	conn.Wait()
	s.closeAll()
	var tl *rpc.TooLongError
	var pe *rpc.ParseError
	if errors.As(err, &tl) || errors.As(err, &pe) {
		return fmt.Errorf("exec-server: bad line: %w", err)
	}
	return err
}

// methods is the protocol's method table. initialize and ping run on the
// reading goroutine: the handshake decides how every later line is taken,
// and a keep-alive measures the link and this loop, not a queue of
// handlers. Every other request runs on its own goroutine.
func (s *server) methods() *rpc.Methods {
	m := rpc.NewMethods()
	rpc.Handle(m, mInitialize, s.initialize)
	rpc.Handle(m, mPing, func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })
	m.Inline(mInitialize, mPing)
	rpc.Handle(m, mExecStart, s.start)
	rpc.Handle(m, mExecKill, s.kill)
	rpc.Handle(m, mExecWrite, func(_ context.Context, p writeParams) (struct{}, error) { return s.input(p, false) })
	rpc.Handle(m, mExecInterrupt, func(_ context.Context, p writeParams) (struct{}, error) { return s.input(p, true) })
	rpc.Handle(m, mStat, func(ctx context.Context, p pathParams) (FileInfo, error) { return s.b.Stat(ctx, p.Path) })
	rpc.Handle(m, mReadDir, func(ctx context.Context, p pathParams) ([]DirEntry, error) { return s.b.ReadDir(ctx, p.Path) })
	rpc.Handle(m, mWalk, func(ctx context.Context, p walkParams) (WalkResult, error) { return s.b.Walk(ctx, p.Root, p.Max) })
	rpc.Handle(m, mPatch, func(ctx context.Context, p PatchRequest) (PatchResult, error) { return s.b.ApplyPatch(ctx, p) })
	rpc.Handle(m, mOpen, s.open)
	rpc.Handle(m, mRead, s.read)
	rpc.Handle(m, mClose, s.closeFile)
	rpc.Handle(m, mReap, func(_ context.Context, p reapParams) (reapResult, error) { return reap(s.opts.StateDir, p.Session) })
	return m
}

// guard refuses every request but the handshake and the keep-alive until
// a handshake succeeded.
func (s *server) guard(_ context.Context, method string) error {
	if method == mInitialize || method == mPing || s.ready.Load() {
		return nil
	}
	return fmt.Errorf("exec-server: initialize first (protocol version %d)", ProtocolVersion)
}

// server is one session: the processes it started and the files it has
// open, all ended by closeAll.
type server struct {
	b     Backend
	opts  ServeOptions
	reg   *registry // nil without a state dir or a session token
	ready atomic.Bool
	out   *rpc.Writer
	wg    sync.WaitGroup // process waiters

	mu     sync.Mutex
	procs  map[uint64]context.CancelFunc
	live   map[uint64]Process // the same commands, for input and interrupts
	files  map[uint64]io.ReadCloser
	nextFH uint64
}

// closeAll runs once every process's context has ended and every request
// has been answered.
func (s *server) closeAll() {
	s.wg.Wait()
	s.mu.Lock()
	for h, f := range s.files {
		_ = f.Close()
		delete(s.files, h)
	}
	s.mu.Unlock()
	s.reg.close()
}

func (s *server) initialize(_ context.Context, p initializeParams) (initializeResult, error) {
	if p.Version != ProtocolVersion {
		return initializeResult{}, fmt.Errorf("exec-server: protocol version %d is not supported (this grove speaks %d); install the same grove version on both machines", p.Version, ProtocolVersion)
	}
	if p.Session != "" && s.opts.StateDir != "" {
		reg, err := openRegistry(s.opts.StateDir, p.Session)
		if err != nil {
			return initializeResult{}, fmt.Errorf("exec-server: session record: %w", err)
		}
		s.reg = reg
	}
	s.ready.Store(true)
	return initializeResult{Version: ProtocolVersion, Sandbox: s.b.Info().Sandbox, TempDir: tempDir(), Sessions: true}, nil
}

func (s *server) notify(method string, params any) { _ = s.out.Notify(method, params) }

// kill kills a command's tree (its exit is reported as usual).
func (s *server) kill(_ context.Context, p pidParams) (struct{}, error) {
	s.mu.Lock()
	cancel := s.procs[p.PID]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return struct{}{}, nil
}

// start starts a command; its output and exit arrive as notifications.
func (s *server) start(ctx context.Context, p execStartParams) (struct{}, error) {
	pctx, cancel := context.WithCancel(ctx)
	p.Output = writerFunc(func(b []byte) (int, error) {
		s.notify(nOutput, outputParams{PID: p.PID, Data: b})
		return len(b), nil
	})
	proc, err := s.b.Start(pctx, p.ExecRequest)
	if err != nil {
		cancel()
		return struct{}{}, err
	}
	s.mu.Lock()
	s.procs[p.PID] = cancel
	s.live[p.PID] = proc
	s.mu.Unlock()
	s.reg.add(p.PID, p.Argv)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		code, err := proc.Wait()
		s.mu.Lock()
		delete(s.procs, p.PID)
		delete(s.live, p.PID)
		s.mu.Unlock()
		s.reg.remove(p.PID)
		cancel()
		ex := exitParams{PID: p.PID, Code: code, Denied: SandboxDenied(proc)}
		if err != nil {
			ex.Error = err.Error()
		}
		s.notify(nExit, ex)
	}()
	return struct{}{}, nil
}

// input serves exec/write and exec/interrupt on a running command of
// this session.
func (s *server) input(p writeParams, interrupt bool) (struct{}, error) {
	s.mu.Lock()
	proc, _ := s.live[p.PID].(Interactive)
	s.mu.Unlock()
	if proc == nil {
		return struct{}{}, errors.New("exec-server: no running command with this id")
	}
	if interrupt {
		return struct{}{}, proc.Interrupt()
	}
	return struct{}{}, proc.WriteInput(p.Data)
}

// open, read and closeFile serve fs/open, fs/read and fs/close on handles
// of this session.
func (s *server) open(ctx context.Context, p pathParams) (handleParams, error) {
	f, err := s.b.Open(ctx, p.Path)
	if err != nil {
		return handleParams{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextFH++
	s.files[s.nextFH] = f
	return handleParams{Handle: s.nextFH}, nil
}

func (s *server) handle(h uint64, remove bool) (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[h]
	if remove {
		delete(s.files, h)
	}
	if f == nil {
		return nil, errors.New("exec-server: unknown file handle")
	}
	return f, nil
}

func (s *server) closeFile(_ context.Context, p handleParams) (struct{}, error) {
	f, err := s.handle(p.Handle, true)
	if err != nil {
		return struct{}{}, err
	}
	return struct{}{}, f.Close()
}

func (s *server) read(_ context.Context, p handleParams) (readResult, error) {
	f, err := s.handle(p.Handle, false)
	if err != nil {
		return readResult{}, err
	}
	buf := make([]byte, readChunk)
	n, err := io.ReadFull(f, buf)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return readResult{Data: buf[:n], EOF: true}, nil
	case err != nil:
		return readResult{}, err
	}
	return readResult{Data: buf[:n]}, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
