package rollout_test

import (
	"os"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

// BenchmarkListSessionsFirstPage: the resume picker's first page (50) from
// an index of 10 000 sessions indexed three times each (40 000 lines with
// their children).
func BenchmarkListSessionsFirstPage(b *testing.B) {
	home := b.TempDir()
	if err := rollouttest.GenerateIndex(home, 10_000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		entries, more, err := rollout.ListSessions(home, 0, 50)
		if err != nil || len(entries) != 50 || !more || entries[0].ID != rollouttest.SessionID(9_999) {
			b.Fatalf("%d entries, more=%v, err=%v", len(entries), more, err)
		}
	}
}

// BenchmarkAppendItem: one ~200-byte assistant message, written to the
// file at once (one write call per line, no fsync); the Flush every 16
// items is what turn ends did when lines were buffered, and is now a no-op.
func BenchmarkAppendItem(b *testing.B) {
	r, err := rollout.Create(b.TempDir(), rollout.SessionMeta{ID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	it := protocol.AssistantMessage(strings.Repeat("word ", 40))
	i := 0
	b.ResetTimer()
	for b.Loop() {
		if err := r.AppendItem(it); err != nil {
			b.Fatal(err)
		}
		if i++; i%16 == 0 {
			if err := r.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReverseScanTail: the last status of a 10 MB rollout, as
// list_active_agents does for status_duration_sec.
func BenchmarkReverseScanTail(b *testing.B) {
	r, err := rollout.Create(b.TempDir(), rollout.SessionMeta{ID: "big"})
	if err != nil {
		b.Fatal(err)
	}
	st := protocol.Running()
	big := protocol.FunctionCallOutput("c", strings.Repeat("output ", 150))
	// A status transition every 50 items, as turns end.
	for i := range 10_000 {
		if i%50 == 0 {
			_ = r.AppendEvent(protocol.Event{Type: protocol.EventStatusChanged, Status: &st})
		}
		if err := r.AppendItem(big); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	if fi, err := os.Stat(r.Path()); err != nil || fi.Size() < 10<<20 {
		b.Fatalf("rollout too small: %v %v", fi, err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, ok, err := rollout.LastStatusChange(r.Path()); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
