package model_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
)

// hugeStream is a chat event stream of about size bytes of answer text,
// generated on the fly (nothing of it is held in memory at once).
type hugeStream struct {
	chunk   []byte // one SSE event carrying 4 KiB of text
	left    int
	pending []byte
}

func newHugeStream(size int) *hugeStream {
	text := strings.Repeat("grove ", 4096/6)
	return &hugeStream{chunk: fmt.Appendf(nil, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text), left: size / len(text)}
}

func (h *hugeStream) Read(p []byte) (int, error) {
	if len(h.pending) == 0 {
		switch {
		case h.left > 0:
			h.pending = h.chunk
			h.left--
		case h.left == 0:
			h.pending = []byte("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			h.left = -1
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, h.pending)
	h.pending = h.pending[n:]
	return n, nil
}

func (h *hugeStream) Close() error { return nil }

func hugeClient(t testing.TB, size, limit int) model.Client {
	t.Helper()
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: newHugeStream(size), Request: r}, nil
	})
	c, err := model.New(model.ProviderConfig{Name: "huge", BaseURL: "http://huge.invalid/v1", WireAPI: "chat", HTTPClient: &http.Client{Transport: rt}, MaxMessageBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// peakHeap samples the live heap while f runs and returns its maximum.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}

// A runaway answer is cut at the cap with a marker and a warning, and what
// grove keeps (and shows) stays bounded by the cap, not by the stream.
func TestHugeAnswerIsCapped(t *testing.T) {
	const size, limit = 8 << 20, 64 << 10
	var shown, warnings int
	resp, err := hugeClient(t, size, limit).Stream(context.Background(), req(), func(d model.Delta) {
		switch d.Kind {
		case model.DeltaText:
			shown += len(d.Text)
		case model.DeltaWarning:
			warnings++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Text) > limit+200 || !strings.Contains(resp.Text, "[grove: message truncated") || warnings != 1 || shown != len(resp.Text) {
		t.Fatalf("kept %d bytes, shown %d, %d warnings, tail %q", len(resp.Text), shown, warnings, resp.Text[max(0, len(resp.Text)-120):])
	}
}

// BenchmarkHugeAnswer streams 200 MB of answer text through the client
// with the default 1 MiB cap; peak-heap-MB is the largest live heap seen.
func BenchmarkHugeAnswer(b *testing.B) {
	const size = 200 << 20
	b.SetBytes(size)
	var peak uint64
	for b.Loop() {
		c := hugeClient(b, size, 0)
		peak = max(peak, peakHeap(func() {
			if _, err := c.Stream(context.Background(), req(), func(model.Delta) {}); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// oneEndlessEvent is an event stream whose first event never ends: data
// lines forever, no blank line.
type oneEndlessEvent struct{ sent int }

func (e *oneEndlessEvent) Read(p []byte) (int, error) {
	line := "data: " + strings.Repeat("x", 1018) + "\n"
	n := 0
	for n+len(line) <= len(p) {
		n += copy(p[n:], line)
	}
	e.sent += n
	return n, nil
}

func (e *oneEndlessEvent) Close() error { return nil }

// An event that never ends is cut at its limit with a clear error, not
// buffered until memory runs out, and not retried.
func TestEndlessEventIsCut(t *testing.T) {
	body := &oneEndlessEvent{}
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body, Request: r}, nil
	})
	c, err := model.New(model.ProviderConfig{Name: "endless", BaseURL: "http://endless.invalid/v1", HTTPClient: &http.Client{Transport: rt}, MaxMessageBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var streamErr error
	peak := peakHeap(func() { _, streamErr = c.Stream(context.Background(), req(), nil) })
	var apiErr *model.APIError
	if !errors.As(streamErr, &apiErr) || apiErr.Attempts != 1 || !strings.Contains(streamErr.Error(), "too large") {
		t.Fatalf("%v", streamErr)
	}
	if body.sent > 9<<20 {
		t.Fatalf("read %d bytes of one event before giving up", body.sent)
	}
	t.Logf("peak heap %d MiB", peak>>20)
}
