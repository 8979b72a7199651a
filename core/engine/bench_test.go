package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// noopTool returns at once and stamps when its result was ready, so the
// benchmark measures the harness, not the tool.
type noopTool struct{ readyAt atomic.Int64 }

func (n *noopTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "noop", Description: "does nothing", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (n *noopTool) Run(context.Context, *tools.Env, json.RawMessage) tools.Result {
	n.readyAt.Store(time.Now().UnixNano())
	return tools.Result{Output: "ok"}
}

func benchEngine(b *testing.B, fn model.ScriptFunc, extra ...tools.Tool) (*Engine, protocol.ThreadID) {
	return benchEngineN(b, fn, 0, extra...)
}

// benchEngineN is benchEngine with a max_threads limit (0 = default); the
// engine shuts down when the benchmark ends.
func benchEngineN(b *testing.B, fn model.ScriptFunc, maxThreads int, extra ...tools.Tool) (*Engine, protocol.ThreadID) {
	e, root, shutdown := newBenchEngine(b, fn, maxThreads, extra...)
	b.Cleanup(shutdown)
	return e, root
}

// newBenchEngine starts an engine with a root thread; the caller shuts it
// down with the returned func.
func newBenchEngine(b *testing.B, fn model.ScriptFunc, maxThreads int, extra ...tools.Tool) (*Engine, protocol.ThreadID, func()) {
	b.Helper()
	base := b.TempDir()
	home, cwd := filepath.Join(base, "home"), filepath.Join(base, "work")
	_ = os.MkdirAll(home, 0o755)
	_ = os.MkdirAll(cwd, 0o755)
	reg := tools.NewRegistry()
	if err := tools.RegisterCore(reg); err != nil {
		b.Fatal(err)
	}
	for _, t := range extra {
		if err := reg.Register(t); err != nil {
			b.Fatal(err)
		}
	}
	e, err := New(context.Background(), Options{
		Home: home, Cwd: cwd, Model: "bench", Client: model.NewScripted("bench", fn), Tools: reg,
		Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, MaxThreads: maxThreads,
		Surfaces:  []SurfaceFactory{collabSurface},
		Templates: templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home, UserHome: base}, templates.Options{}),
	})
	if err != nil {
		b.Fatal(err)
	}
	root, err := e.StartRoot()
	if err != nil {
		b.Fatal(err)
	}
	return e, root, func() { _ = e.Shutdown(context.Background()) }
}

// waitTurn blocks until the root finishes a turn and returns how many
// threads closed meanwhile.
func waitTurn(b *testing.B, events <-chan protocol.Event, root protocol.ThreadID) (closed int) {
	for ev := range events {
		if ev.Type == protocol.EventThreadClosed {
			closed++
		}
		if ev.ThreadID == root && ev.Type == protocol.EventTurnCompleted {
			return closed
		}
	}
	b.Fatal("event stream closed")
	return closed
}

// waitFanOut is waitTurn for a fan-out op, which must close its n children.
func waitFanOut(b *testing.B, events <-chan protocol.Event, root protocol.ThreadID, n int) {
	if closed := waitTurn(b, events, root); closed != n {
		b.Fatalf("fan-out closed %d children, want %d", closed, n)
	}
}

// turnaroundRounds is the length of every conversation the turnaround
// benchmark runs: each op starts a fresh thread, so the history a request
// carries never depends on b.N.
const turnaroundRounds = 20

// BenchmarkToolTurnaround: one op = a fresh root thread running
// turnaroundRounds tool rounds; ms/turnaround is the mean of tool result
// ready → next model request, with a zero-latency in-process model.
func BenchmarkToolTurnaround(b *testing.B) {
	noop := &noopTool{}
	var total, samples atomic.Int64
	fn := func(_ context.Context, req model.Request) (model.Response, error) {
		if at := noop.readyAt.Swap(0); at != 0 {
			total.Add(time.Now().UnixNano() - at)
			samples.Add(1)
		}
		tn := parseTurn(req)
		if tn.rounds >= turnaroundRounds {
			return model.Response{Text: "done"}, nil
		}
		return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: fmt.Sprintf("c%d", tn.rounds), Name: "noop", Arguments: "{}"}}}, nil
	}
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		e, root, shutdown := newBenchEngine(b, fn, 0, noop)
		events, cancel := e.Subscribe()
		b.StartTimer()
		_ = e.SubmitText(root, "go")
		waitTurn(b, events, root)
		b.StopTimer()
		cancel()
		shutdown()
	}
	if n := samples.Load(); n > 0 {
		b.ReportMetric(float64(total.Load())/float64(n)/1e6, "ms/turnaround")
	}
}

// BenchmarkSpawnLatency: spawn_agent call → the child's first model request.
func BenchmarkSpawnLatency(b *testing.B) {
	var spawnAt atomic.Int64
	var total, samples atomic.Int64
	fn := func(_ context.Context, req model.Request) (model.Response, error) {
		if roleOf(req) != "root" {
			if at := spawnAt.Swap(0); at != 0 {
				total.Add(time.Now().UnixNano() - at)
				samples.Add(1)
			}
			return model.Response{Text: "child done"}, nil
		}
		tn := parseTurn(req)
		switch tn.rounds {
		case 0:
			spawnAt.Store(time.Now().UnixNano())
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "s", Name: "spawn_agent", Arguments: `{"message":"hi"}`}}}, nil
		case 1:
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "w", Name: "wait", Arguments: `{"ids":["` + agentIDFrom(tn.output("s")) + `"]}`}}}, nil
		case 2:
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "c", Name: "close_agent", Arguments: `{"id":"` + agentIDFrom(tn.output("s")) + `"}`}}}, nil
		}
		return model.Response{Text: "ok"}, nil
	}
	e, root := benchEngine(b, fn)
	events, cancel := e.Subscribe()
	defer cancel()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = e.SubmitText(root, "spawn one")
		waitTurn(b, events, root)
	}
	b.StopTimer()
	if n := samples.Load(); n > 0 {
		b.ReportMetric(float64(total.Load())/float64(n)/1e6, "ms/spawn")
	}
}

// closeCallPrefix marks the fan-out root's close_agent calls.
const closeCallPrefix = "close-"

// fanOut scripts a root that spawns n children, each running cmds
// exec_command calls, then waits for all and closes them.
func fanOut(n, cmds int) model.ScriptFunc { return fanOutScript(n, cmds, true) }

// fanOutScript is fanOut; with closeChildren false the children stay idle.
func fanOutScript(n, cmds int, closeChildren bool) model.ScriptFunc {
	return func(_ context.Context, req model.Request) (model.Response, error) {
		tn := parseTurn(req)
		if roleOf(req) != "root" {
			if tn.rounds < cmds {
				return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: fmt.Sprintf("x%d", tn.rounds), Name: "exec_command", Arguments: `{"cmd":"true"}`}}}, nil
			}
			return model.Response{Text: "child done"}, nil
		}
		var spawned []string
		finals := map[string]bool{}
		// Only this turn's outputs: each op is a new turn of the same root.
		closed := false
		for callID, out := range tn.outputs {
			if strings.HasPrefix(callID, closeCallPrefix) {
				closed = true
				continue
			}
			if id := agentIDFrom(out); id != "" {
				spawned = append(spawned, id)
			}
			var w struct {
				Status map[string]json.RawMessage `json:"status"`
			}
			if json.Unmarshal([]byte(out), &w) == nil {
				for id := range w.Status {
					finals[id] = true
				}
			}
		}
		if tn.rounds == 0 {
			var cs []model.ToolCallRequest
			for i := 0; i < n; i++ {
				cs = append(cs, model.ToolCallRequest{CallID: fmt.Sprintf("s%d", i), Name: "spawn_agent", Arguments: `{"message":"run three commands"}`})
			}
			return model.Response{ToolCalls: cs}, nil
		}
		var pending []string
		for _, id := range spawned {
			if !finals[id] {
				pending = append(pending, id)
			}
		}
		if len(pending) > 0 {
			ids, _ := json.Marshal(pending)
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: fmt.Sprintf("w%d", tn.rounds), Name: "wait", Arguments: `{"ids":` + string(ids) + `}`}}}, nil
		}
		if closeChildren && !closed && len(spawned) > 0 {
			var cs []model.ToolCallRequest
			for i, id := range spawned {
				cs = append(cs, model.ToolCallRequest{CallID: fmt.Sprintf("%s%d", closeCallPrefix, i), Name: "close_agent", Arguments: `{"id":"` + id + `"}`})
			}
			return model.Response{ToolCalls: cs}, nil
		}
		return model.Response{Text: "all children done"}, nil
	}
}

func runFanOut(b *testing.B, n, cmds int) { runFanOutN(b, n, cmds) }

// runFanOutN runs the fan-out with max_threads raised to n when needed.
func runFanOutN(b *testing.B, n, cmds int) {
	e, root := benchEngineN(b, fanOut(n, cmds), max(n, 12))
	events, cancel := e.Subscribe()
	defer cancel()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	b.ResetTimer()
	startCPU := processCPU()
	for i := 0; i < b.N; i++ {
		_ = e.SubmitText(root, "fan out")
		waitFanOut(b, events, root, n)
	}
	cpu := processCPU() - startCPU
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-heap-peak")
	// On a shared machine the wall time says how busy it is; CPU less so.
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkFanOut6x3: 6 children × 3 exec_command calls each (wall per op).
func BenchmarkFanOut6x3(b *testing.B) { runFanOut(b, 6, 3) }

// BenchmarkFanOut100x3: the scale scenario in process: 100 concurrent
// children × 3 exec_command calls (heap peak and wall per op).
func BenchmarkFanOut100x3(b *testing.B) { runFanOutN(b, 100, 3) }

// BenchmarkFiftyAgents: 50 concurrent children × 1 command.
func BenchmarkFiftyAgents(b *testing.B) { runFanOutLimit(b, 50, 1) }

func runFanOutLimit(b *testing.B, n, cmds int) {
	e, root := benchEngineN(b, fanOut(n, cmds), n)
	events, cancel := e.Subscribe()
	defer cancel()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = e.SubmitText(root, "fan out")
		waitFanOut(b, events, root, n)
	}
}

// BenchmarkMemoryPerThread: heap held by one idle sub-agent (spawned, ran a
// turn, waiting for input), measured over 50 of them.
func BenchmarkMemoryPerThread(b *testing.B) {
	const n = 50
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		e, root := benchEngineN(b, fanOutScript(n, 0, false), n)
		events, cancel := e.Subscribe()
		_ = e.SubmitText(root, "fan out")
		waitTurn(b, events, root)
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/n/1024, "KiB/thread")
		cancel()
		_ = e.Shutdown(context.Background())
		b.StartTimer()
	}
}
