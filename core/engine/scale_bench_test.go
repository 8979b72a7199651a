package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
)

// The scale curves (issue 25), one sub-benchmark per point; `just scale`
// runs them all with -benchtime 1x and docs/benchmarks.md has the numbers.

// BenchmarkScaleAgents: a root fans out to n sub-agents that answer at
// once (zero-latency model), waits for all and closes them.
func BenchmarkScaleAgents(b *testing.B) {
	for _, n := range []int{1, 10, 100, 400, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { runFanOutN(b, n, 0) })
	}
}

// countingServer is leanChatServer that also counts the request bytes.
func countingServer(reply string, bytes *atomic.Int64) *httptest.Server {
	inner := leanChatServer(reply)
	h := inner.Config.Handler
	inner.Close()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = countReads{r.Body, bytes}
		h.ServeHTTP(w, r)
	}))
}

type countReads struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countReads) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// BenchmarkScaleTurns: one session of 5,000 turns; grove's own time per
// turn (medians of the 20 turns before each point, wall and CPU) and the
// bytes sent in all.
func BenchmarkScaleTurns(b *testing.B) {
	var sent atomic.Int64
	srv := countingServer(strings.Repeat("I looked at the parser and it is fine ", 8), &sent)
	defer srv.Close()
	const turns = 5000
	for range b.N {
		sent.Store(0)
		d, cpu := longSession(b, srv, turns, true)
		for _, at := range []int{10, 100, 1000, 2000, 5000} {
			from := max(2, at-20)
			b.ReportMetric(medianMS(d[from:at]), fmt.Sprintf("ms/turn@%d", at))
			b.ReportMetric(medianMS(cpu[from:at]), fmt.Sprintf("cpu-ms/turn@%d", at))
		}
		b.ReportMetric(float64(sent.Load())/(1<<20), "MiB-sent-total")
	}
}

// BenchmarkScaleToolOutput: one exec_command printing size bytes; the wall
// time of the turn and how much of it reaches the model.
func BenchmarkScaleToolOutput(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20, 100 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			var toModel atomic.Int64
			var bytes atomic.Int64
			fn := func(_ context.Context, req model.Request) (model.Response, error) {
				tn := parseTurn(req)
				if tn.rounds == 0 {
					cmd := fmt.Sprintf(`{"cmd":"head -c %d /dev/zero | tr '\\0' a"}`, bytes.Load())
					return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "big", Name: "exec_command", Arguments: cmd}}}, nil
				}
				toModel.Store(int64(len(tn.output("big"))))
				return model.Response{Text: "seen"}, nil
			}
			e, root := benchEngineN(b, fn, 0)
			events, cancel := e.Subscribe()
			defer cancel()
			// A small command first: the sandbox helper's start is not
			// part of the curve (BenchmarkFirstCommand measures it).
			bytes.Store(10)
			if err := e.SubmitText(root, "warm up"); err != nil {
				b.Fatal(err)
			}
			waitTurn(b, events, root)
			bytes.Store(int64(size))
			var total time.Duration
			for range b.N {
				start := time.Now()
				if err := e.SubmitText(root, "print it"); err != nil {
					b.Fatal(err)
				}
				waitTurn(b, events, root)
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/turn")
			b.ReportMetric(float64(toModel.Load()), "chars-to-model")
		})
	}
}
