package model

import (
	"errors"
	"fmt"
	"io"
)

// errEventTooLarge: one SSE event grew past its limit. The decoder would
// otherwise buffer it whole, however large a hostile server makes it.
var errEventTooLarge = errors.New("stream event too large")

// eventLimit bounds the bytes of one SSE event (from one blank line to
// the next) so memory stays bounded whatever the server sends.
type eventLimit struct {
	io.ReadCloser
	max  int
	n    int  // bytes of the current event so far
	prev byte // last byte seen, to find "\n\n" and "\n\r\n" across reads
}

// maxEventBytes is the largest SSE event accepted: room for one capped
// message sent whole in a single event, JSON escaping included.
func maxEventBytes(messageCap int) int { return max(8<<20, 8*messageCap) }

func (r *eventLimit) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	for _, b := range p[:n] {
		switch {
		case b == '\n' && r.prev == '\n':
			r.n = 0
		case b == '\r':
			// "\r\n": the \r does not end the previous line's newline run.
			continue
		default:
			r.n++
		}
		r.prev = b
	}
	if r.n > r.max {
		return n, fmt.Errorf("%w (over %d bytes)", errEventTooLarge, r.max)
	}
	return n, err
}
