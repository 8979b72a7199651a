package tui

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

// runPicker feeds cmd's messages to the picker until nothing is left
// (what the program does between keys).
func runPicker(p *picker, cmd tea.Cmd) {
	for _, msg := range collect(cmd) {
		runPicker(p, p.update(msg))
	}
}

// typeFilterUntil opens a picker on home, types filter a key at a time
// (running what each key starts and rendering, as the program does) and
// returns how long until want is visible (wall and process CPU), and
// whether it was.
func typeFilterUntil(home, filter string, want string) (time.Duration, time.Duration, bool) {
	p := newPicker(home, func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) })
	runPicker(p, p.load())
	start, startCPU := time.Now(), cpuTime()
	for _, r := range filter {
		k := string(r)
		_, cmd := p.key(tea.KeyPressMsg{Code: r, Text: k})
		runPicker(p, cmd)
		p.visible() // the render after the key
	}
	for _, e := range p.visible() {
		if e.FirstPrompt == want {
			return time.Since(start), cpuTime() - startCPU, true
		}
	}
	return time.Since(start), cpuTime() - startCPU, false
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const oldestPrompt = "session 0: refactor the parser module and add tests for edge case 0"

// Typing a filter that only the oldest of 10,000 sessions matches well
// shows it: the whole index is read once, not page after page.
func TestPickerFilterFindsTheOldestSession(t *testing.T) {
	home := t.TempDir()
	if err := rollouttest.GenerateIndex(home, 10_000); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := typeFilterUntil(home, "session 0: refactor", oldestPrompt); !ok {
		t.Fatal("the oldest session is not among the matches")
	}
	// Narrowing and widening again give what a fresh search gives.
	p := newPicker(home, func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) })
	runPicker(p, p.load())
	for _, k := range []string{"e", "d", "g", "e", " ", "1", "6"} {
		_, cmd := p.key(tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
		runPicker(p, cmd)
	}
	narrowed := p.visible()
	fresh := newPicker(home, p.now)
	fresh.entries, fresh.more, fresh.filter = p.entries, false, p.filter
	if got, want := fmt.Sprint(ids(narrowed)), fmt.Sprint(ids(fresh.visible())); got != want || len(narrowed) == 0 {
		t.Fatalf("incremental search %d matches differ from a fresh one (%d)", len(narrowed), len(fresh.visible()))
	}
}

func ids(es []rollout.IndexEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.ID)
	}
	return out
}

// BenchmarkPickerFilterOldest: from the first key of a filter to the
// oldest session on screen, with 100 to 100,000 sessions.
//
//	go test ./tui -run '^$' -bench PickerFilterOldest -benchtime 3x
func BenchmarkPickerFilterOldest(b *testing.B) {
	for _, n := range []int{100, 1000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			home := b.TempDir()
			if err := rollouttest.GenerateIndex(home, n); err != nil {
				b.Fatal(err)
			}
			var total, cpu time.Duration
			for range b.N {
				d, c, ok := typeFilterUntil(home, "session 0: refactor", oldestPrompt)
				if !ok {
					b.Fatal("oldest session not shown")
				}
				total += d
				cpu += c
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/filter")
			// On a shared machine the wall time mostly says how busy it is.
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/filter")
		})
	}
}
