// Package rpc is grove's JSON-lines RPC: one JSON object per line each way,
// JSON-RPC 2.0 messages without the "jsonrpc" header (as Codex's
// app-server speaks them). Both `grove app-server` and `grove exec-server`
// (and its client, execenv.Remote) run on it: the framing (Reader), the
// ordered output with backpressure (Writer), the method table with typed
// params (Methods, Handle) and a connection that reads, dispatches and
// matches answers to its own requests (Conn).
package rpc

import (
	"encoding/json"
	"fmt"
)

// Message is any line: a request (ID and Method), a notification (Method
// only) or a response (ID with Result or Error).
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object. Kind is the exec-server's extension:
// the class of a file-system error (not_exist, exist, permission,
// invalid), so errors.Is holds on the client as it did on the server; the
// exec-server's own errors carry no code.
type Error struct {
	Code    int    `json:"code,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// JSON-RPC error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeOverloaded is Codex's backpressure answer: the request queue is full.
	CodeOverloaded = -32001
)

// OverloadedMessage is Codex's wording for CodeOverloaded.
const OverloadedMessage = "Server overloaded; retry later."

// Errorf builds an error with a code.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// nullID is the id of an error answering a message whose id is unknown.
var nullID = json.RawMessage("null")

// Outgoing shapes, one per kind of message, so that a response always has
// "result" (null included) and a notification always "params".
type (
	outResponse struct {
		ID     json.RawMessage `json:"id"`
		Result any             `json:"result"`
	}
	outError struct {
		ID    json.RawMessage `json:"id"`
		Error *Error          `json:"error"`
	}
	outNotification struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}
	outRequest struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}
)
