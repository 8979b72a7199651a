package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// Options shape how a Conn reads and dispatches.
type Options struct {
	// MaxLine bounds one incoming line (default 16 MiB).
	MaxLine int
	// AnswerBadLines: a line over MaxLine or not JSON is answered -32700
	// (id null) and reading goes on. Otherwise Serve ends with the error:
	// a peer that sends such a line is not one to keep talking to.
	AnswerBadLines bool
	// Workers: 0 runs each request on its own goroutine; n > 0 runs n
	// workers taking requests in order from a queue of Queue, and a request
	// that finds the queue full is answered CodeOverloaded at once.
	Workers, Queue int
	// Guard runs before a request's handler, in the order requests are
	// taken (by the worker; on the reading goroutine when each request has
	// its own); an error answers the request instead (a handshake not yet
	// done).
	Guard func(ctx context.Context, method string) error
	// OnResponse gets answers that are not to a Call: the answers to
	// requests sent with Writer.Request. It runs on the reading goroutine.
	OnResponse func(Message)
	// OtherNotification gets notifications the table has no handler for
	// (on the reading goroutine).
	OtherNotification func(Message)
	// WireError turns a handler's error into the error sent. Default: an
	// *Error as it is, any other -32603 with its message.
	WireError func(error) *Error
}

// Conn is one connection: it reads messages, answers requests from its
// method table, routes notifications, and matches answers to the requests
// it sent with Call.
type Conn struct {
	in   *Reader
	out  *Writer
	m    *Methods
	opts Options

	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan Message
	err     error // set once by Close
	started bool  // Serve has started its workers
	wg      sync.WaitGroup
}

// NewConn reads from in and writes through out.
func NewConn(in io.Reader, out *Writer, m *Methods, o Options) *Conn {
	if o.MaxLine <= 0 {
		o.MaxLine = 16 << 20
	}
	if m == nil {
		m = NewMethods()
	}
	return &Conn{in: NewReader(in, o.MaxLine), out: out, m: m, opts: o, pending: map[int64]chan Message{}}
}

// Writer is the connection's output.
func (c *Conn) Writer() *Writer { return c.out }

// Serve reads and dispatches until the input ends (nil at EOF), a bad
// line ends it (see Options.AnswerBadLines) or ctx ends. Requests already
// read are still answered: Wait waits for them.
func (c *Conn) Serve(ctx context.Context) error {
	queue := c.startWorkers(ctx)
	if queue != nil {
		defer close(queue) // the workers answer what is queued, then return
	}
	for {
		m, err := c.in.Next()
		var tl *TooLongError
		var pe *ParseError
		if errors.As(err, &tl) || errors.As(err, &pe) {
			if c.opts.AnswerBadLines {
				_ = c.out.Fail(nil, Errorf(CodeParseError, "parse error: %v", err))
				continue
			}
			return err
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.dispatch(ctx, m, queue)
	}
}

func (c *Conn) startWorkers(ctx context.Context) chan Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started = true
	if c.opts.Workers <= 0 {
		return nil
	}
	queue := make(chan Message, c.opts.Queue)
	for range c.opts.Workers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for {
				select {
				case m, ok := <-queue:
					if !ok {
						return
					}
					c.handle(ctx, m)
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return queue
}

// Wait waits for the requests read so far to be answered (call it once
// Serve has returned, or its ctx ended).
func (c *Conn) Wait() {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	if started {
		c.wg.Wait()
	}
}

func (c *Conn) dispatch(ctx context.Context, m Message, queue chan Message) {
	switch {
	case m.Method == "" && len(m.ID) > 0:
		c.response(m)
	case m.Method == "":
		_ = c.out.Fail(m.ID, Errorf(CodeInvalidRequest, "invalid request: no method"))
	case len(m.ID) == 0:
		if h := c.m.notes[m.Method]; h != nil {
			h(ctx, m.Params)
		} else if c.opts.OtherNotification != nil {
			c.opts.OtherNotification(m)
		}
	case c.m.inline[m.Method]:
		c.handle(ctx, m)
	case queue == nil:
		// Checked here, in the order the requests came: a request read
		// before the handshake is refused even if its goroutine runs after.
		if err := c.guard(ctx, m.Method); err != nil {
			_ = c.out.Fail(m.ID, c.wireError(err))
			return
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.run(ctx, m)
		}()
	default:
		select {
		case queue <- m:
		default:
			_ = c.out.Fail(m.ID, Errorf(CodeOverloaded, OverloadedMessage))
		}
	}
}

func (c *Conn) guard(ctx context.Context, method string) error {
	if c.opts.Guard == nil {
		return nil
	}
	return c.opts.Guard(ctx, method)
}

// handle answers one request: its guard, then its handler.
func (c *Conn) handle(ctx context.Context, m Message) {
	if err := c.guard(ctx, m.Method); err != nil {
		_ = c.out.Fail(m.ID, c.wireError(err))
		return
	}
	c.run(ctx, m)
}

// run answers one request from its handler.
func (c *Conn) run(ctx context.Context, m Message) {
	ctx = context.WithValue(ctx, ctxKey{}, m.ID)
	res, err := c.m.Call(ctx, m.Method, m.Params)
	if err != nil {
		_ = c.out.Fail(m.ID, c.wireError(err))
		return
	}
	switch r := res.(type) {
	case *later:
	case AndThen:
		c.respond(m.ID, r.Result)
		if r.Then != nil {
			r.Then()
		}
	default:
		c.respond(m.ID, res)
	}
}

// respond answers with res; a result that cannot be encoded is answered
// with the error instead, so no request goes unanswered.
func (c *Conn) respond(id json.RawMessage, res any) {
	var ee *EncodeError
	if err := c.out.Respond(id, res); errors.As(err, &ee) {
		_ = c.out.Fail(id, c.wireError(ee))
	}
}

func (c *Conn) wireError(err error) *Error {
	if c.opts.WireError != nil {
		return c.opts.WireError(err)
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// response routes an answer to the Call waiting for it, or to OnResponse.
func (c *Conn) response(m Message) {
	if id, err := strconv.ParseInt(string(m.ID), 10, 64); err == nil {
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
			return
		}
	}
	if c.opts.OnResponse != nil {
		c.opts.OnResponse(m)
	}
}

// Call sends a request and decodes its answer into res (when not nil). An
// error answer is returned as an *Error; a Conn closed before the answer
// returns the error it was closed with.
func (c *Conn) Call(ctx context.Context, method string, params, res any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	id := c.nextID.Add(1)
	ch := make(chan Message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.out.Send(ctx, outRequest{ID: id, Method: method, Params: params}); err != nil {
		c.forget(id)
		if cerr := c.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return c.Err()
		}
		if m.Error != nil {
			return m.Error
		}
		if res != nil {
			return json.Unmarshal(m.Result, res)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return ctx.Err()
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Close ends the connection with err: every Call waiting for an answer
// returns it, later Calls too, and the output is abandoned. Only the
// first Close counts.
func (c *Conn) Close(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = map[int64]chan Message{}
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	c.out.Abandon()
}

// Err is the error the connection was closed with, if it was.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
