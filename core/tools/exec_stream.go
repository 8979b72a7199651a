package tools

import (
	"sync"
	"time"
	"unicode/utf8"

	"github.com/grovecli/grove/protocol"
)

// Live output of a running command: deltas are coalesced to at most one
// per streamInterval and streamChunk bytes each, and stop after
// streamBudget bytes (a chatty build must not flood the bus or a client;
// the full, capped output still arrives with tool_call_end).
const (
	streamInterval = 100 * time.Millisecond
	streamChunk    = 8 << 10
	streamBudget   = 256 << 10
)

// outputStreamer is the io.Writer the command's output is copied through
// besides the result buffer. A goroutine it owns flushes what arrived every
// interval; close stops it after a last flush.
type outputStreamer struct {
	emit   func(protocol.Event)
	callID string

	mu      sync.Mutex
	pending []byte
	sent    int  // bytes emitted so far
	over    bool // budget spent: nothing more is streamed

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

func newOutputStreamer(emit func(protocol.Event), callID string, interval time.Duration) *outputStreamer {
	s := &outputStreamer{emit: emit, callID: callID, stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop(interval)
	return s
}

func (s *outputStreamer) Write(p []byte) (int, error) {
	s.mu.Lock()
	if !s.over {
		room := streamBudget - s.sent - len(s.pending)
		s.pending = append(s.pending, p[:min(len(p), max(room, 0))]...)
	}
	s.mu.Unlock()
	return len(p), nil
}

func (s *outputStreamer) loop(interval time.Duration) {
	defer close(s.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			s.flush(false)
		case <-s.stop:
			s.flush(true)
			return
		}
	}
}

// flush emits what is pending, one chunk per event; an incomplete UTF-8
// sequence at the end waits for its remaining bytes unless this is the last
// flush.
func (s *outputStreamer) flush(last bool) {
	s.mu.Lock()
	b := s.pending
	if !last {
		b = b[:completeUTF8(b)]
	}
	s.pending = append([]byte(nil), s.pending[len(b):]...)
	s.sent += len(b)
	if s.sent >= streamBudget {
		s.over = true
	}
	s.mu.Unlock()
	for len(b) > 0 {
		n := min(len(b), streamChunk)
		if n < len(b) {
			n = completeUTF8(b[:n])
			if n == 0 {
				n = min(len(b), streamChunk)
			}
		}
		s.emit(protocol.NewEvent("", "", protocol.ExecOutputDeltaMsg{
			Call: protocol.ToolCall{CallID: s.callID, Name: "exec_command"}, Delta: string(b[:n])}))
		b = b[n:]
	}
}

// close flushes the rest and stops the goroutine; later calls only wait.
func (s *outputStreamer) close() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}

// completeUTF8 is the length of b without an incomplete multi-byte sequence
// at its end.
func completeUTF8(b []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return len(b)
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return len(b) - i
			}
			return len(b)
		}
	}
	return len(b)
}
