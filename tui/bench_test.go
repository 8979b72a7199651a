package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout/rollouttest"
)

// BenchmarkViewManyAgents: View() with 100 live agents and a 5 000-line
// transcript on the focused thread (200x60).
func BenchmarkViewManyAgents(b *testing.B) {
	fb := newFake(rootInfo())
	c := &clock{t: t0.Add(time.Minute)}
	m := NewModel(Options{Backend: fb, Now: c.now})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m = mm.(Model)
	var evs []protocol.Event
	for i := 0; i < 100; i++ {
		id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", i))
		parent := rootID
		depth := 1
		if i%4 != 0 {
			parent = protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", i-i%4))
			depth = 2
		}
		evs = append(evs, started(child(id, "worker", "", fmt.Sprintf("task %d", i), depth, parent), time.Second), status(id, protocol.Running(), 2*time.Second))
	}
	for i := 0; i < 1250; i++ {
		evs = append(evs, message(rootID, fmt.Sprintf("line %d of a long answer\nwith more text %d\nand more\nand the end", i, i)))
	}
	m = feed(m, evs...)
	_ = m.View() // the first frame renders every message's Markdown once (cached after)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.r.frame++ // spinners advance every frame, as in the app
		_ = m.View()
	}
}

// BenchmarkDeltaThroughput: Update and View for one agent's streamed
// deltas in fixed batches of 64 (one View per batch). The real reader
// batches per frame; BenchmarkEventPipeline measures that end to end.
func BenchmarkDeltaThroughput(b *testing.B) {
	fb := newFake(rootInfo())
	c := &clock{t: t0}
	m := NewModel(Options{Backend: fb, Now: c.now})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = mm.(Model)
	const batch = 64
	d := ev(protocol.EventMessageDelta, rootID, time.Second)
	d.Delta = "word "
	evs := make([]protocol.Event, batch)
	for i := range evs {
		evs[i] = d
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m = feed(m, evs...)
		_ = m.View()
		if i%200 == 199 { // a message ends now and then
			m = feed(m, message(rootID, strings.Repeat("word ", 50)))
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkPickerFirstPage: `grove resume` with 10 000 sessions: load the
// first page and render it.
func BenchmarkPickerFirstPage(b *testing.B) {
	home := b.TempDir()
	if err := rollouttest.GenerateIndex(home, 10_000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := NewModel(Options{StartInPicker: true, Home: home})
		mm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m = mm.(Model)
		mm, _ = m.Update(m.picker.load()())
		m = mm.(Model)
		if !strings.Contains(m.render(), "session 9999") {
			b.Fatal("first page does not show the newest session")
		}
	}
}

// BenchmarkFrameWhileStreaming: one frame while 100 agents stream (each
// frame: a batch with one delta per agent, applied, then View; the focused
// root streams too, with a 5 000-line transcript). Reports the slowest
// frame and the mean.
func BenchmarkFrameWhileStreaming(b *testing.B) {
	fb := newFake(rootInfo())
	c := &clock{t: t0.Add(time.Minute)}
	m := NewModel(Options{Backend: fb, Now: c.now})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m = mm.(Model)
	var evs []protocol.Event
	ids := []protocol.ThreadID{rootID}
	for i := 0; i < 100; i++ {
		id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", i))
		ids = append(ids, id)
		evs = append(evs, started(child(id, "worker", "", fmt.Sprintf("task %d", i), 1, rootID), time.Second), status(id, protocol.Running(), 2*time.Second))
	}
	for i := 0; i < 1250; i++ {
		evs = append(evs, message(rootID, fmt.Sprintf("line %d of a long answer\nwith more text %d\nand more\nand the end", i, i)))
	}
	m = feed(m, evs...)
	_ = m.View()
	batch := make([]protocol.Event, len(ids))
	for i, id := range ids {
		batch[i] = ev(protocol.EventMessageDelta, id, 3*time.Second)
		batch[i].Delta = "token "
	}
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		m = feed(m, batch...)
		m.r.frame++
		_ = m.View()
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms/frame")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "mean-ms/frame")
}
