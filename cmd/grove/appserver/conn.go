// Package appserver is `grove app-server`: the Codex app-server v2 protocol
// (JSON-RPC 2.0 without the "jsonrpc" header, one message per line over
// stdio) as a front end over grove's engine Op/Event API.
package appserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/grovecli/grove/protocol"
)

// maxLineBytes bounds one incoming message; longer lines are answered with a
// parse error and skipped.
const maxLineBytes = 16 << 20

// errLineTooLong marks a line over maxLineBytes (its rest was discarded).
var errLineTooLong = errors.New("message longer than 16 MiB")

// lineReader reads newline-terminated messages of bounded size.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-empty line without its newline. A line longer
// than the limit is consumed and reported as errLineTooLong.
func (l *lineReader) next() ([]byte, error) {
	for {
		var buf []byte
		tooLong := false
		for {
			chunk, err := l.r.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(chunk) > l.max {
					tooLong, buf = true, nil
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if line := bytes.TrimSpace(buf); err == io.EOF && len(line) > 0 && !tooLong {
					return line, nil
				}
				if err == io.EOF && tooLong {
					return nil, errLineTooLong // the next call reports EOF
				}
				return nil, err
			}
			break
		}
		if tooLong {
			return nil, errLineTooLong
		}
		if line := bytes.TrimSpace(buf); len(line) > 0 {
			return line, nil
		}
	}
}

// writer serialises outgoing messages, one JSON object per line. Lines
// go through a bounded queue to one goroutine that writes them, so that a
// client that stops reading blocks senders only until the server gives up
// on it (abandon): then every send fails at once and the server can shut
// down and exit instead of hanging on a full pipe.
type writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
	// observe, when set, sees every line written (tests validate them).
	observe func([]byte)
	// optOut are notification methods the client asked not to get.
	optOut map[string]bool

	startOnce sync.Once
	queue     chan []byte
	gone      chan struct{} // closed by abandon
	goneOnce  sync.Once
	done      chan struct{} // closed when the write loop has returned
	closed    bool          // finish was called
	// stall is how long a full queue may wait for the client.
	stall time.Duration
}

// writeQueue bounds the lines waiting for a slow client.
const writeQueue = 1024

// start runs the write loop (Serve); until then lines are written inline.
func (w *writer) start() {
	w.startOnce.Do(func() {
		w.mu.Lock()
		w.queue = make(chan []byte, writeQueue)
		w.gone = make(chan struct{})
		w.done = make(chan struct{})
		w.mu.Unlock()
		go w.loop()
	})
}

// loop writes queued lines until the queue is closed (finish).
func (w *writer) loop() {
	defer close(w.done)
	for b := range w.queue {
		if _, err := w.w.Write(b); err != nil {
			w.abandon() // first: a sender may hold mu, waiting on the queue
			w.mu.Lock()
			if w.err == nil {
				w.err = fmt.Errorf("write message: %w", err)
			}
			w.mu.Unlock()
		}
	}
}

// abandon gives up on the client: pending and later sends fail.
// It takes no lock: a sender holding mu calls it. gone is set once by
// start (Serve), before any goroutine that could call abandon exists.
func (w *writer) abandon() {
	if w.gone != nil {
		w.goneOnce.Do(func() { close(w.gone) })
	}
}

// finish ends the writer once the server has stopped sending: the queued
// lines are written within grace; a client that does not read them by
// then is abandoned (the write loop ends with the process).
func (w *writer) finish(grace time.Duration) {
	w.mu.Lock()
	if w.queue == nil { // never started: every line was written inline
		w.mu.Unlock()
		return
	}
	if w.queue != nil && !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.abandon()
	}
}

func (w *writer) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	w.mu.Lock()
	if w.err != nil || w.closed {
		err := w.err
		w.mu.Unlock()
		if err == nil {
			err = errWriterClosed
		}
		return err
	}
	if w.observe != nil {
		w.observe(b)
	}
	// Under mu, so lines keep their order; a full queue waits for the
	// client or for abandon.
	defer w.mu.Unlock()
	if w.queue == nil {
		// Not started (a Server built without Serve): written inline.
		if _, err := w.w.Write(append(b, '\n')); err != nil {
			w.err = fmt.Errorf("write message: %w", err)
			return w.err
		}
		return nil
	}
	line := append(b, '\n')
	select {
	case w.queue <- line:
		return nil
	default:
	}
	// The queue is full: the client is not reading. One that reads
	// nothing for the stall timeout is given up on, so that no sender
	// (the reader answering, an event pump) waits forever.
	stall := time.NewTimer(w.stall)
	defer stall.Stop()
	select {
	case w.queue <- line:
		return nil
	case <-w.gone:
		return errClientGone
	case <-stall.C:
		w.abandon()
		return errClientGone
	}
}

var (
	errWriterClosed = errors.New("app-server: output closed")
	errClientGone   = errors.New("app-server: the client stopped reading")
)

// wire shapes of outgoing messages (no "jsonrpc" header, as Codex).
type outResponse struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
}

type outError struct {
	ID    json.RawMessage    `json:"id"`
	Error *protocol.RPCError `json:"error"`
}

type outNotification struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

type outRequest struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// nullID is the id of an error answering a message whose id is unknown.
var nullID = json.RawMessage("null")

func (w *writer) respond(id json.RawMessage, result any) error {
	return w.send(outResponse{ID: id, Result: result})
}

func (w *writer) fail(id json.RawMessage, rerr *protocol.RPCError) error {
	if len(id) == 0 {
		id = nullID
	}
	return w.send(outError{ID: id, Error: rerr})
}

func (w *writer) notify(method string, params any) error {
	w.mu.Lock()
	skip := w.optOut[method]
	w.mu.Unlock()
	if skip {
		return nil
	}
	return w.send(outNotification{Method: method, Params: params})
}

// rpcError builds an error with a code.
func rpcError(code int, format string, args ...any) *protocol.RPCError {
	return &protocol.RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// decodeParams decodes params into v; a type mismatch names the field.
// Unknown fields are ignored (clients send Codex fields grove does not use).
func decodeParams(raw json.RawMessage, v any) *protocol.RPCError {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return rpcError(protocol.RPCInvalidParams, "invalid params: field %s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return rpcError(protocol.RPCInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// missing reports a required field.
func missing(field string) *protocol.RPCError {
	return rpcError(protocol.RPCInvalidParams, "invalid params: %s is required", field)
}
