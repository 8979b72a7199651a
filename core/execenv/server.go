package execenv

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
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
	s := &server{b: backend, opts: o, out: bufio.NewWriter(out), procs: map[uint64]context.CancelFunc{}, live: map[uint64]Process{}, files: map[uint64]io.ReadCloser{}}
	defer s.closeAll(cancel)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return fmt.Errorf("exec-server: bad line: %w", err)
		}
		if m.Method == mInitialize {
			s.initialize(m)
			continue
		}
		if m.Method == mPing {
			// Answered on the reading goroutine: a keep-alive measures the
			// link and this loop, not a queue of handlers.
			s.reply(m.ID, struct{}{}, nil)
			continue
		}
		if !s.ready {
			s.reply(m.ID, nil, fmt.Errorf("exec-server: initialize first (protocol version %d)", ProtocolVersion))
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			res, err := s.handle(ctx, m)
			s.reply(m.ID, res, err)
		}()
	}
	return sc.Err()
}

// server is one session: the processes it started and the files it has
// open, all ended by closeAll.
type server struct {
	b     Backend
	opts  ServeOptions
	reg   *registry // nil without a state dir or a session token
	ready bool
	wmu   sync.Mutex
	out   *bufio.Writer
	wg    sync.WaitGroup // handlers and process waiters

	mu     sync.Mutex
	procs  map[uint64]context.CancelFunc
	live   map[uint64]Process // the same commands, for input and interrupts
	files  map[uint64]io.ReadCloser
	nextFH uint64
}

func (s *server) closeAll(cancel context.CancelFunc) {
	cancel() // every process's context: the backend kills their trees
	s.wg.Wait()
	s.mu.Lock()
	for h, f := range s.files {
		_ = f.Close()
		delete(s.files, h)
	}
	s.mu.Unlock()
	s.reg.close()
}

func (s *server) initialize(m message) {
	var p initializeParams
	if err := decodeParams(m.Params, &p); err != nil {
		s.reply(m.ID, nil, err)
		return
	}
	if p.Version != ProtocolVersion {
		s.reply(m.ID, nil, fmt.Errorf("exec-server: protocol version %d is not supported (this grove speaks %d); install the same grove version on both machines", p.Version, ProtocolVersion))
		return
	}
	if p.Session != "" && s.opts.StateDir != "" {
		reg, err := openRegistry(s.opts.StateDir, p.Session)
		if err != nil {
			s.reply(m.ID, nil, fmt.Errorf("exec-server: session record: %w", err))
			return
		}
		s.reg = reg
	}
	s.ready = true
	s.reply(m.ID, initializeResult{Version: ProtocolVersion, Sandbox: s.b.Info().Sandbox, TempDir: tempDir(), Sessions: true}, nil)
}

func (s *server) send(m message) {
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(message{ID: m.ID, Error: toWire(err)})
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _ = s.out.Write(append(b, '\n'))
	_ = s.out.Flush()
}

func (s *server) reply(id uint64, res any, err error) {
	if err != nil {
		s.send(message{ID: id, Error: toWire(err)})
		return
	}
	raw, merr := json.Marshal(res)
	if merr != nil {
		s.send(message{ID: id, Error: toWire(merr)})
		return
	}
	s.send(message{ID: id, Result: raw})
}

func (s *server) notify(method string, params any) {
	raw, _ := json.Marshal(params)
	s.send(message{Method: method, Params: raw})
}

func (s *server) handle(ctx context.Context, m message) (any, error) {
	switch m.Method {
	case mExecStart:
		return s.start(ctx, m.Params)
	case mExecKill:
		var p pidParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		s.mu.Lock()
		cancel := s.procs[p.PID]
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return struct{}{}, nil
	case mExecWrite, mExecInterrupt:
		return s.input(m)
	case mStat:
		var p pathParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		return s.b.Stat(ctx, p.Path)
	case mReadDir:
		var p pathParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		return s.b.ReadDir(ctx, p.Path)
	case mWalk:
		var p walkParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		return s.b.Walk(ctx, p.Root, p.Max)
	case mPatch:
		var p PatchRequest
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		return s.b.ApplyPatch(ctx, p)
	case mOpen, mRead, mClose:
		return s.file(ctx, m)
	case mReap:
		var p reapParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		return reap(s.opts.StateDir, p.Session)
	}
	return nil, fmt.Errorf("exec-server: unknown method %q", m.Method)
}

// start starts a command; its output and exit arrive as notifications.
func (s *server) start(ctx context.Context, raw json.RawMessage) (any, error) {
	var p execStartParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	p.Output = writerFunc(func(b []byte) (int, error) {
		s.notify(nOutput, outputParams{PID: p.PID, Data: b})
		return len(b), nil
	})
	proc, err := s.b.Start(pctx, p.ExecRequest)
	if err != nil {
		cancel()
		return nil, err
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
func (s *server) input(m message) (any, error) {
	var p writeParams
	if err := decodeParams(m.Params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	proc, _ := s.live[p.PID].(Interactive)
	s.mu.Unlock()
	if proc == nil {
		return nil, errors.New("exec-server: no running command with this id")
	}
	if m.Method == mExecInterrupt {
		return struct{}{}, proc.Interrupt()
	}
	return struct{}{}, proc.WriteInput(p.Data)
}

// file serves fs/open, fs/read and fs/close on handles of this session.
func (s *server) file(ctx context.Context, m message) (any, error) {
	if m.Method == mOpen {
		var p pathParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		f, err := s.b.Open(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.nextFH++
		s.files[s.nextFH] = f
		return handleParams{Handle: s.nextFH}, nil
	}
	var p handleParams
	if err := decodeParams(m.Params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	f := s.files[p.Handle]
	if m.Method == mClose {
		delete(s.files, p.Handle)
	}
	s.mu.Unlock()
	if f == nil {
		return nil, errors.New("exec-server: unknown file handle")
	}
	if m.Method == mClose {
		return struct{}{}, f.Close()
	}
	buf := make([]byte, readChunk)
	n, err := io.ReadFull(f, buf)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return readResult{Data: buf[:n], EOF: true}, nil
	case err != nil:
		return nil, err
	}
	return readResult{Data: buf[:n]}, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
