package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// leanChatServer is a zero-latency Chat Completions provider that costs
// next to nothing per request whatever its size: it reads the body and
// plays a fixed reply (no JSON decoding, unlike modeltest), so a turn's
// time is grove's own.
func leanChatServer(reply string) *httptest.Server {
	words := strings.Fields(reply)
	var sse strings.Builder
	for i, w := range words {
		if i > 0 {
			w = " " + w
		}
		fmt.Fprintf(&sse, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", w)
	}
	sse.WriteString("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	sse.WriteString("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":10,\"total_tokens\":110}}\n\n")
	sse.WriteString("data: [DONE]\n\n")
	body := sse.String()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
}

// noPrefix is the client as it was before requests reused the encoded
// history: every request encodes every item.
type noPrefix struct{ model.Client }

func (c noPrefix) Stream(ctx context.Context, req model.Request, f func(model.Delta)) (model.Response, error) {
	req.Prefix = nil
	return c.Client.Stream(ctx, req, f)
}

// longSession runs turns user turns (≈300-byte asks and replies) against
// srv and returns each turn's wall time, submit to final status, and the
// process CPU time it took (on a shared machine the wall time mostly says
// how busy the machine is).
func longSession(tb testing.TB, srv *httptest.Server, turns int, cached bool) (wall, cpu []time.Duration) {
	base := tb.TempDir()
	home, cwd := filepath.Join(base, "home"), filepath.Join(base, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	c, err := model.New(model.ProviderConfig{Name: "lean", BaseURL: srv.URL + "/v1", WireAPI: "chat"})
	if err != nil {
		tb.Fatal(err)
	}
	if !cached {
		c = noPrefix{c}
	}
	e, err := New(context.Background(), Options{
		Home: home, Cwd: cwd, Provider: "lean", Model: "bench-model", Client: c,
		Sandbox:        protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		ApprovalPolicy: protocol.ApprovalNever, Headless: true,
		Templates: templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home, UserHome: base}, templates.Options{}),
		// No compaction: the point is the cost of a long history.
		AutoCompactTokenLimit: 1 << 40,
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = e.Shutdown(context.Background()) }()
	root, err := e.StartRoot()
	if err != nil {
		tb.Fatal(err)
	}
	t := e.thread(root)
	ask := strings.Repeat("please look at the parser again ", 9)
	wall, cpu = make([]time.Duration, turns), make([]time.Duration, turns)
	for i := range turns {
		_, changed := t.status.watch()
		start, startCPU := time.Now(), processCPU()
		if err := e.SubmitText(root, fmt.Sprintf("turn %d: %s", i, ask)); err != nil {
			tb.Fatal(err)
		}
		for {
			<-changed
			var st protocol.AgentStatus
			st, changed = t.status.watch()
			if st.Kind == protocol.StatusCompleted {
				break
			}
			if st.Kind == protocol.StatusErrored {
				tb.Fatalf("turn %d: %s", i, st.Message)
			}
		}
		wall[i], cpu[i] = time.Since(start), processCPU()-startCPU
	}
	return wall, cpu
}

// processCPU is the process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// medianMS is the median of ds in milliseconds (a shared machine's
// stalls stay out of it).
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkLongSession measures grove's own time per turn at turn 10 and
// at turn 2,000 of one session (medians of turns 6-55 and 1951-2000) (zero-latency model), with the encoded
// history reused (cached) and re-encoded every request (uncached):
//
//	go test ./core/engine -run '^$' -bench LongSession -benchtime 1x
func BenchmarkLongSession(b *testing.B) {
	srv := leanChatServer(strings.Repeat("I looked at the parser and it is fine ", 8))
	defer srv.Close()
	turns := 2000
	for _, cached := range []bool{true, false} {
		name := map[bool]string{true: "cached", false: "uncached"}[cached]
		b.Run(name, func(b *testing.B) {
			for range b.N {
				d, cpu := longSession(b, srv, turns, cached)
				early, late := medianMS(d[5:55]), medianMS(d[turns-50:])
				b.ReportMetric(early, "ms/turn@10")
				b.ReportMetric(late, "ms/turn@2000")
				b.ReportMetric(late/early, "late/early")
				ce, cl := medianMS(cpu[5:55]), medianMS(cpu[turns-50:])
				b.ReportMetric(ce, "cpu-ms/turn@10")
				b.ReportMetric(cl, "cpu-ms/turn@2000")
				b.ReportMetric(cl/ce, "cpu-late/early")
			}
		})
	}
}
