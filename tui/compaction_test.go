package tui

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// /compact asks the engine to compact the focused agent (with the
// instructions typed after it), and the engine's context_compacted event
// shows as a marker with the tokens before and after.
func TestCompactCommandAndMarker(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 100, 30, fb)
	m = feed(m, started(rootInfo(), 0))
	m = typeText(m, "/compact keep the file list")
	m = pressDrive(m, "enter")
	var ops []protocol.Op
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpCompact {
			ops = append(ops, op)
		}
	}
	if len(ops) != 1 || ops[0].ThreadID != rootInfo().ID || ops[0].Text != "keep the file list" {
		t.Fatalf("compact ops %+v", ops)
	}
	ev := protocol.NewEvent(rootInfo().ID, "", protocol.ContextCompactedMsg{Compaction: protocol.Compaction{Trigger: protocol.CompactManual, TokensBefore: 183_000, TokensAfter: 4_200}})
	m = feed(m, ev)
	if s := screen(m); !strings.Contains(s, "context compacted (/compact): ~183k → ~4.2k tokens") {
		t.Fatalf("no compaction marker:\n%s", s)
	}
}
