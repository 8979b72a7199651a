package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// WriterOptions shape how a Writer waits for its peer.
type WriterOptions struct {
	// Queued: lines go through a queue of Queue lines (0: unbuffered) to
	// one goroutine that writes them, so that a write blocked on a peer
	// that stopped reading holds that goroutine only: a sender waits at
	// most until its context ends, Stall passes, or the peer is abandoned.
	// Not queued: each Send writes its line itself.
	Queued bool
	Queue  int
	// Stall is how long a sender waits on a full queue before the peer is
	// given up on (0: as long as the sender's context allows).
	Stall time.Duration
	// Observe sees every line sent, in order (tests validate them).
	Observe func([]byte)
	// OnError is told once when a write fails (the stream is broken).
	OnError func(error)
}

// Writer writes messages one JSON object per line, in the order they were
// sent.
type Writer struct {
	w    io.Writer
	opts WriterOptions

	// turn is held by the sender whose line goes next: it keeps lines in
	// order, and waiting for it respects the sender's context.
	turn chan struct{}

	mu     sync.Mutex
	err    error
	closed bool // Finish was called

	queue    chan []byte
	closing  chan struct{} // Finish: write what is queued, then stop
	gone     chan struct{} // Abandon: every pending and later send fails
	goneOnce sync.Once
	errOnce  sync.Once
	done     chan struct{} // the write loop has returned
}

// EncodeError is a message that could not be encoded; nothing was sent.
type EncodeError struct{ Err error }

func (e *EncodeError) Error() string { return "encode message: " + e.Err.Error() }
func (e *EncodeError) Unwrap() error { return e.Err }

var (
	// ErrClosed is a send after Finish.
	ErrClosed = errors.New("rpc: output closed")
	// ErrPeerGone is a send after the peer was given up on.
	ErrPeerGone = errors.New("rpc: the peer stopped reading")
)

// NewWriter writes lines to w; a queued writer starts its write loop now.
func NewWriter(w io.Writer, o WriterOptions) *Writer {
	wr := &Writer{w: w, opts: o, turn: make(chan struct{}, 1), gone: make(chan struct{}), closing: make(chan struct{}), done: make(chan struct{})}
	if !o.Queued {
		close(wr.done)
		return wr
	}
	wr.queue = make(chan []byte, o.Queue)
	go wr.loop()
	return wr
}

// loop writes queued lines until Finish, then what is still queued.
func (w *Writer) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.gone:
			return
		case b := <-w.queue:
			w.write(b)
		case <-w.closing:
			for {
				select {
				case <-w.gone:
					return
				case b := <-w.queue:
					w.write(b)
				default:
					return
				}
			}
		}
	}
}

func (w *Writer) write(b []byte) {
	if w.Err() != nil {
		return
	}
	if _, err := w.w.Write(b); err != nil {
		w.Abandon() // first: a sender may be waiting on the queue
		w.fail(fmt.Errorf("write message: %w", err))
	}
}

func (w *Writer) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	if w.opts.OnError != nil {
		w.errOnce.Do(func() { w.opts.OnError(err) })
	}
}

// Err is the write error that broke the stream, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Abandon gives up on the peer: pending and later sends fail.
func (w *Writer) Abandon() {
	w.goneOnce.Do(func() { close(w.gone) })
}

// Finish ends the writer once nothing more will be sent: the queued lines
// are written within grace; a peer that does not read them by then is
// abandoned (the write loop ends when its write does).
func (w *Writer) Finish(grace time.Duration) {
	w.mu.Lock()
	first := !w.closed
	w.closed = true
	w.mu.Unlock()
	if !first || w.queue == nil {
		return
	}
	close(w.closing)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.Abandon()
	}
}

// acquire takes the turn; false when the peer was abandoned first.
func (w *Writer) acquire(ctx context.Context) bool {
	select {
	case w.turn <- struct{}{}:
		return true
	case <-w.gone:
		return false
	case <-ctx.Done():
		return false
	}
}

func (w *Writer) release() { <-w.turn }

// Send writes v as one line. It waits for its turn and for the queue as
// long as ctx, the stall bound and the peer allow.
func (w *Writer) Send(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return &EncodeError{Err: err}
	}
	if !w.acquire(ctx) {
		return w.why(ctx)
	}
	defer w.release()
	w.mu.Lock()
	err, closed := w.err, w.closed
	w.mu.Unlock()
	if err != nil {
		return err
	}
	if closed {
		return ErrClosed
	}
	if w.opts.Observe != nil {
		w.opts.Observe(b)
	}
	line := append(b, '\n')
	if w.queue == nil {
		if _, err := w.w.Write(line); err != nil {
			err = fmt.Errorf("write message: %w", err)
			w.fail(err)
			return err
		}
		return nil
	}
	select {
	case w.queue <- line:
		return nil
	default:
	}
	var stall <-chan time.Time
	if w.opts.Stall > 0 {
		t := time.NewTimer(w.opts.Stall)
		defer t.Stop()
		stall = t.C
	}
	select {
	case w.queue <- line:
		return nil
	case <-w.gone:
		return w.why(ctx)
	case <-ctx.Done():
		return ctx.Err()
	case <-stall:
		// The peer read nothing for the stall bound: give up on it, so
		// that no sender waits forever.
		w.Abandon()
		return ErrPeerGone
	}
}

// why explains a send that could not wait its turn.
func (w *Writer) why(ctx context.Context) error {
	if err := w.Err(); err != nil {
		return err
	}
	select {
	case <-w.gone:
		return ErrPeerGone
	default:
	}
	return ctx.Err()
}

// Respond answers request id with result.
func (w *Writer) Respond(id json.RawMessage, result any) error {
	return w.Send(context.Background(), outResponse{ID: id, Result: result})
}

// Fail answers request id with an error; a message whose id is unknown is
// answered with the id null.
func (w *Writer) Fail(id json.RawMessage, e *Error) error {
	if len(id) == 0 {
		id = nullID
	}
	return w.Send(context.Background(), outError{ID: id, Error: e})
}

// Notify sends a notification.
func (w *Writer) Notify(method string, params any) error {
	return w.Send(context.Background(), outNotification{Method: method, Params: params})
}

// Request sends a request whose answer the caller matches by id (a
// Conn's OnResponse): the server-initiated requests of the app-server.
func (w *Writer) Request(id int64, method string, params any) error {
	return w.Send(context.Background(), outRequest{ID: id, Method: method, Params: params})
}
