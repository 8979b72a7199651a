package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// Methods is a method table: request handlers, each with its params type,
// and notification handlers.
type Methods struct {
	reqs   map[string]func(ctx context.Context, params json.RawMessage) (any, error)
	notes  map[string]func(ctx context.Context, params json.RawMessage)
	inline map[string]bool
}

// NewMethods returns an empty table.
func NewMethods() *Methods {
	return &Methods{reqs: map[string]func(context.Context, json.RawMessage) (any, error){},
		notes: map[string]func(context.Context, json.RawMessage){}, inline: map[string]bool{}}
}

// Handle registers the handler of method name. Its params are decoded into
// a P (missing or null params decode as {}); params that do not fit answer
// -32602 naming the field, without calling fn. A result of Later sends no
// response (the handler answers later); AndThen runs a follow-up after
// the response is written.
func Handle[P, R any](m *Methods, name string, fn func(context.Context, P) (R, error)) {
	m.reqs[name] = func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}
}

// HandleNotification registers a notification's handler. Notifications
// run on the reading goroutine, in order; params that do not fit are
// dropped (a notification has no answer to carry the error).
func HandleNotification[P any](m *Methods, name string, fn func(context.Context, P)) {
	m.notes[name] = func(ctx context.Context, raw json.RawMessage) {
		var p P
		if DecodeParams(raw, &p) == nil {
			fn(ctx, p)
		}
	}
}

// Inline makes the named methods run on the reading goroutine, ahead of
// any queue: a handshake that decides how later lines are taken, or a
// keep-alive that measures the link and the reader, not a backlog.
func (m *Methods) Inline(names ...string) {
	for _, n := range names {
		m.inline[n] = true
	}
}

// Has reports whether a request handler is registered for name.
func (m *Methods) Has(name string) bool { return m.reqs[name] != nil }

// Call runs method's handler: -32601 when there is none.
func (m *Methods) Call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	h := m.reqs[method]
	if h == nil {
		return nil, Errorf(CodeMethodNotFound, "method not found: %s", method)
	}
	return h(ctx, params)
}

// DecodeParams decodes params into v; a type mismatch names the field.
// Unknown fields are ignored (clients send fields a server does not use).
func DecodeParams(raw json.RawMessage, v any) *Error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Errorf(CodeInvalidParams, "invalid params: field %s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// Later is the result of a request answered later, with Conn.Respond
// (turn/start answers once its turn has started).
var Later any = &later{}

type later struct{}

// AndThen is a result whose follow-up must reach the peer after the
// response (thread/started after thread/start's answer).
type AndThen struct {
	Result any
	Then   func()
}

type ctxKey struct{}

// RequestID is the id of the request a handler is answering.
func RequestID(ctx context.Context) json.RawMessage {
	id, _ := ctx.Value(ctxKey{}).(json.RawMessage)
	return id
}
