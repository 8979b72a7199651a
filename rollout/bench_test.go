package rollout_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

// BenchmarkListSessionsFirstPage: the resume picker's first page (50) from
// an index of 10 000 sessions (~40 000 lines).
func BenchmarkListSessionsFirstPage(b *testing.B) {
	home := b.TempDir()
	if err := rollouttest.GenerateIndex(home, 10_000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		entries, more, err := rollout.ListSessions(home, 0, 50)
		if err != nil || len(entries) != 50 || !more {
			b.Fatalf("%d %v %v", len(entries), more, err)
		}
	}
}

func BenchmarkAppendItem(b *testing.B) {
	r, err := rollout.Create(b.TempDir(), rollout.SessionMeta{ID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	it := protocol.AssistantMessage(strings.Repeat("word ", 40))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = r.AppendItem(it)
		if i%16 == 0 {
			_ = r.Flush()
		}
	}
}

// BenchmarkReverseScanTail: the last status of a 10 MB rollout (what
// list_active_agents does for status_duration_sec).
func BenchmarkReverseScanTail(b *testing.B) {
	r, err := rollout.Create(b.TempDir(), rollout.SessionMeta{ID: "big"})
	if err != nil {
		b.Fatal(err)
	}
	st := protocol.Running()
	_ = r.AppendEvent(protocol.Event{Type: protocol.EventStatusChanged, Status: &st})
	big := protocol.FunctionCallOutput("c", strings.Repeat("output ", 150))
	// A status transition every 50 items, as turns end.
	for i := 0; i < 10_000; i++ {
		_ = r.AppendItem(big)
		if i%50 == 0 {
			_ = r.AppendEvent(protocol.Event{Type: protocol.EventStatusChanged, Status: &st})
		}
	}
	_ = r.Close()
	if fi, _ := os.Stat(r.Path()); fi.Size() < 10<<20 {
		b.Fatalf("rollout only %d bytes", fi.Size())
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _, ok, err := rollout.LastStatusChange(r.Path())
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
	_ = filepath.Base(r.Path())
}
