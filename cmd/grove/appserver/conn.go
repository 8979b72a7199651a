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

// writer serialises outgoing messages, one JSON object per line.
type writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
	// observe, when set, sees every line written (tests validate them).
	observe func([]byte)
}

func (w *writer) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.observe != nil {
		w.observe(b)
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("write message: %w", err)
		return w.err
	}
	return nil
}

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
