package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// TooLongError is a line over the reader's limit. Its bytes were consumed:
// reading can go on with the next line.
type TooLongError struct{ Max int }

func (e *TooLongError) Error() string {
	if e.Max >= 1<<20 && e.Max%(1<<20) == 0 {
		return fmt.Sprintf("message longer than %d MiB", e.Max>>20)
	}
	return fmt.Sprintf("message longer than %d bytes", e.Max)
}

// ParseError is a line that is not a JSON message; it was consumed.
type ParseError struct{ Err error }

func (e *ParseError) Error() string { return e.Err.Error() }
func (e *ParseError) Unwrap() error { return e.Err }

// Reader reads newline-terminated messages of bounded size. Blank lines
// are skipped and lines are trimmed (a client may send CRLF).
type Reader struct {
	r   *bufio.Reader
	max int
}

// NewReader reads lines of at most max bytes from r.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next message. A line over the limit is a *TooLongError,
// one that is not a JSON object a *ParseError; both were consumed, and
// the caller decides whether to read on. The end of input is io.EOF.
func (r *Reader) Next() (Message, error) {
	line, err := r.Line()
	if err != nil {
		return Message{}, err
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return Message{}, &ParseError{Err: err}
	}
	return m, nil
}

// Line returns the next non-empty line without its newline.
func (r *Reader) Line() ([]byte, error) {
	for {
		var buf []byte
		tooLong := false
		for {
			chunk, err := r.r.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(chunk) > r.max {
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
					return nil, &TooLongError{Max: r.max} // the next call reports EOF
				}
				return nil, err
			}
			break
		}
		if tooLong {
			return nil, &TooLongError{Max: r.max}
		}
		if line := bytes.TrimSpace(buf); len(line) > 0 {
			return line, nil
		}
	}
}
