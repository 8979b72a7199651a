package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// deltaSink collects exec_command_output_delta events.
type deltaSink struct {
	mu     sync.Mutex
	deltas []string
	got    chan struct{}
}

func (d *deltaSink) emit(ev protocol.Event) {
	if ev.Type != protocol.EventExecOutputDelta {
		return
	}
	d.mu.Lock()
	d.deltas = append(d.deltas, ev.Delta)
	d.mu.Unlock()
	select {
	case d.got <- struct{}{}:
	default:
	}
}

func (d *deltaSink) joined() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.deltas, "")
}

// TestExecStreamsOutputWhileRunning: output shows up as deltas while the
// command still runs (it waits for a file the test creates only after
// seeing its first line), and the deltas add up to the whole output.
func TestExecStreamsOutputWhileRunning(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	sink := &deltaSink{got: make(chan struct{}, 1)}
	env.Emit, env.CallID = sink.emit, "c1"
	stop := filepath.Join(env.Cwd, "stop")
	done := make(chan Result, 1)
	go func() {
		done <- run(t, r, env, "exec_command", map[string]any{"cmd": "echo ready; while [ ! -e stop ]; do sleep 0.01; done; echo finished"})
	}()
	deadline := time.After(60 * time.Second)
	for !strings.Contains(sink.joined(), "ready") {
		select {
		case <-sink.got:
		case res := <-done:
			t.Fatalf("the command ended before its output streamed (it waits for us): %+v", res)
		case <-deadline:
			t.Fatal("no live output while the command ran")
		}
	}
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.IsError || !strings.Contains(res.Output, "ready\nfinished") {
		t.Fatalf("result %+v", res)
	}
	if got := sink.joined(); got != "ready\nfinished\n" {
		t.Fatalf("deltas add up to %q", got)
	}
}

// TestOutputStreamerBoundsAndUTF8: deltas are at most streamChunk bytes,
// stop after streamBudget, and never split a UTF-8 character.
func TestOutputStreamerBoundsAndUTF8(t *testing.T) {
	sink := &deltaSink{got: make(chan struct{}, 1)}
	s := newOutputStreamer(sink.emit, "c", time.Hour) // flushed by close only
	big := strings.Repeat("é", streamBudget)          // 2 bytes each: twice the budget
	for i := 0; i < len(big); i += 4097 {
		_, _ = s.Write([]byte(big[i:min(i+4097, len(big))]))
	}
	s.close()
	total := 0
	for _, d := range sink.deltas {
		if len(d) > streamChunk || !strings.HasPrefix(d, "é") || !strings.HasSuffix(d, "é") {
			t.Fatalf("delta of %d bytes, starts %q ends %q", len(d), d[:2], d[len(d)-2:])
		}
		total += len(d)
	}
	if total != streamBudget {
		t.Fatalf("streamed %d bytes, want the budget %d", total, streamBudget)
	}
	if completeUTF8([]byte("ab\xc3")) != 2 || completeUTF8([]byte("ab\xc3\xa9")) != 4 || completeUTF8([]byte("\xe2\x82")) != 0 {
		t.Fatal("completeUTF8")
	}
}
