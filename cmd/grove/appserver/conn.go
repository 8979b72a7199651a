// Package appserver is `grove app-server`: the Codex app-server v2 protocol
// (JSON-RPC 2.0 without the "jsonrpc" header, one message per line over
// stdio, read and written by core/rpc) as a front end over grove's engine
// Op/Event API.
package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/grovecli/grove/core/rpc"
	"github.com/grovecli/grove/protocol"
)

// maxLineBytes bounds one incoming message; longer lines are answered with a
// parse error and skipped.
const maxLineBytes = 16 << 20

// writeQueue bounds the lines waiting for a slow client.
const writeQueue = 1024

// writer is the server's output: core/rpc's writer, and the notifications
// the client opted out of. Serve starts it queued, so that a client that
// stops reading blocks senders only until the server gives up on it (the
// stall bound): then every send fails at once and the server can shut
// down and exit instead of hanging on a full pipe. A writer never started
// (a Server built without Serve) writes each line itself.
type writer struct {
	w io.Writer
	// observe, when set, sees every line written (tests validate them).
	observe func([]byte)
	// stall is how long a full queue may wait for the client.
	stall time.Duration

	once sync.Once
	out  *rpc.Writer

	mu sync.Mutex
	// optOut are notification methods the client asked not to get.
	optOut map[string]bool
}

// start makes the output queued (Serve).
func (w *writer) start() {
	w.once.Do(func() {
		w.out = rpc.NewWriter(w.w, rpc.WriterOptions{Queued: true, Queue: writeQueue, Stall: w.stall, Observe: w.observe})
	})
}

// lines is the rpc writer (an unstarted writer's writes inline).
func (w *writer) lines() *rpc.Writer {
	w.once.Do(func() { w.out = rpc.NewWriter(w.w, rpc.WriterOptions{Observe: w.observe}) })
	return w.out
}

// abandon gives up on the client: pending and later sends fail.
func (w *writer) abandon() { w.lines().Abandon() }

// finish ends the output once the server has stopped sending: the queued
// lines are written within grace, or the client is abandoned.
func (w *writer) finish(grace time.Duration) { w.lines().Finish(grace) }

func (w *writer) respond(id json.RawMessage, result any) error {
	return w.lines().Respond(id, result)
}

func (w *writer) fail(id json.RawMessage, rerr *protocol.RPCError) error {
	return w.lines().Fail(id, rerr)
}

// request sends a server→client request (an approval, a question); its
// answer reaches Server.answer.
func (w *writer) request(id int64, method string, params any) error {
	return w.lines().Request(id, method, params)
}

func (w *writer) notify(method string, params any) error {
	w.mu.Lock()
	skip := w.optOut[method]
	w.mu.Unlock()
	if skip {
		return nil
	}
	return w.lines().Notify(method, params)
}

// rpcError builds an error with a code.
func rpcError(code int, format string, args ...any) *protocol.RPCError {
	return &protocol.RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// missing reports a required field.
func missing(field string) *protocol.RPCError {
	return rpcError(protocol.RPCInvalidParams, "invalid params: %s is required", field)
}

// handle registers a method whose handler takes its decoded params and
// answers a result or an *RPCError.
func handle[P any](m *rpc.Methods, name string, fn func(P) (any, *protocol.RPCError)) {
	rpc.Handle(m, name, func(_ context.Context, p P) (any, error) {
		res, rerr := fn(p)
		if rerr != nil {
			return nil, rerr
		}
		return reply(res), nil
	})
}

// handleID is handle for a handler that names its request (it answers
// later, or tells the engine which request asked).
func handleID[P any](m *rpc.Methods, name string, fn func(json.RawMessage, P) (any, *protocol.RPCError)) {
	rpc.Handle(m, name, func(ctx context.Context, p P) (any, error) {
		res, rerr := fn(rpc.RequestID(ctx), p)
		if rerr != nil {
			return nil, rerr
		}
		return reply(res), nil
	})
}

// reply turns a handler's result into what core/rpc sends.
func reply(res any) any {
	if r, ok := res.(afterResponse); ok {
		return rpc.AndThen{Result: r.result, Then: r.after}
	}
	return res
}

// deferred marks a request answered later (turn/start answers when its turn
// has started, so the response carries the engine's turn id).
var deferred = rpc.Later
