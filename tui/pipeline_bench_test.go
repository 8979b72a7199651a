package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// engineBackend is the TUI's view of a real engine, as cmd/grove wires it.
type engineBackend struct{ e *engine.Engine }

func (b engineBackend) Subscribe() (<-chan protocol.Event, func()) { return b.e.Subscribe() }
func (b engineBackend) Submit(op protocol.Op) error                { return b.e.Submit(op) }
func (b engineBackend) Turn(t app.Turn) error                      { return app.SubmitTurn(b.e, b.e.RootID(), t) }
func (b engineBackend) Configure(thread protocol.ThreadID, o protocol.TurnOverrides) error {
	return app.SubmitSettings(b.e, b.e.RootID(), thread, o)
}
func (b engineBackend) Threads() []protocol.ThreadInfo { return b.e.Threads() }
func (b engineBackend) History(id protocol.ThreadID) []protocol.Item {
	return b.e.History(id)
}
func (b engineBackend) RootID() protocol.ThreadID { return b.e.RootID() }
func (b engineBackend) Info() SessionInfo {
	return SessionInfo{Model: "bench", Provider: "scripted", Cwd: b.e.Options().Cwd}
}
func (b engineBackend) PendingApprovals() []protocol.ApprovalRequest {
	return b.e.PendingApprovals()
}

// pipelineCounts is shared by the probe's copies (Bubble Tea models are
// values).
type pipelineCounts struct {
	deltas, finals, frames int
}

// pipelineProbe wraps the real root model and quits once every child's
// final message has been applied to the screen state.
type pipelineProbe struct {
	Model
	root   protocol.ThreadID
	want   int
	counts *pipelineCounts
}

func (p pipelineProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if em, ok := msg.(eventsMsg); ok {
		for _, ev := range em.events {
			switch {
			case ev.Type == protocol.EventMessageDelta:
				p.counts.deltas++
			case ev.Type == protocol.EventMessage && ev.ThreadID != p.root:
				p.counts.finals++
			}
		}
	}
	mm, cmd := p.Model.Update(msg)
	p.Model = mm.(Model)
	if p.counts.finals >= p.want {
		return p, tea.Quit
	}
	return p, cmd
}

func (p pipelineProbe) View() tea.View {
	p.counts.frames++
	return p.Model.View()
}

// BenchmarkEventPipeline: 100 sub-agents stream their answers at once
// (zero-latency scripted model, one delta per word); one op is the whole
// run, engine bus → TUI event pump → Model.Update → rendered frames of a
// real Bubble Tea program (200x60, output discarded). deltas/s counts the
// deltas the agents streamed over the wall time until the TUI had applied
// every final message; delivered-batches/delta shows how much the bus and
// the pump coalesced.
func BenchmarkEventPipeline(b *testing.B) {
	const agents, words = 100, 2000
	answer := strings.Repeat("word ", words)
	var streamed atomic.Int64
	fn := func(_ context.Context, req model.Request) (model.Response, error) {
		tn := demo.ParseTurn(req.Items)
		if strings.Contains(req.Instructions, "you are sub-agent") {
			streamed.Add(words)
			return model.Response{Text: answer}, nil
		}
		if tn.Rounds == 0 {
			cs := make([]model.ToolCallRequest, agents)
			for i := range cs {
				cs[i] = model.ToolCallRequest{CallID: fmt.Sprintf("s%d", i), Name: "spawn_agent", Arguments: `{"message":"stream"}`}
			}
			return model.Response{ToolCalls: cs}, nil
		}
		return model.Response{Text: "spawned"}, nil
	}
	var totalDeltas, totalFrames, totalDelivered int64
	var elapsed time.Duration
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		base := b.TempDir()
		home, cwd := filepath.Join(base, "home"), filepath.Join(base, "work")
		for _, d := range []string{home, cwd} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		e, err := engine.New(context.Background(), engine.Options{
			Home: home, Cwd: cwd, Model: "bench", Client: model.NewScripted("bench", fn),
			Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, MaxThreads: agents,
			Templates: templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home, UserHome: base}, templates.Options{}),
		})
		if err != nil {
			b.Fatal(err)
		}
		root, err := e.StartRoot()
		if err != nil {
			b.Fatal(err)
		}
		counts := &pipelineCounts{}
		probe := pipelineProbe{Model: NewModel(Options{Backend: engineBackend{e}}), root: root, want: agents, counts: counts}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		p := tea.NewProgram(probe, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(io.Discard),
			tea.WithWindowSize(200, 60), tea.WithoutSignalHandler())
		streamed.Store(0)
		b.StartTimer()
		start := time.Now()
		if err := e.SubmitText(root, "fan out"); err != nil {
			b.Fatal(err)
		}
		final, err := p.Run()
		took := time.Since(start)
		b.StopTimer()
		cancel()
		if err != nil {
			b.Fatalf("program: %v (applied %d of %d final messages)", err, counts.finals, agents)
		}
		if fm, ok := final.(pipelineProbe); ok && fm.unsub != nil {
			fm.unsub()
		}
		_ = e.Shutdown(context.Background())
		totalDeltas += streamed.Load()
		totalDelivered += int64(counts.deltas)
		totalFrames += int64(counts.frames)
		elapsed += took
	}
	b.ReportMetric(float64(totalDeltas)/elapsed.Seconds(), "deltas/s")
	b.ReportMetric(float64(totalDelivered)/float64(totalDeltas), "delivered/delta")
	b.ReportMetric(float64(totalFrames)/float64(b.N), "frames/op")
}
