package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// Events whose payload is missing (a malformed frame, a hand-edited
// rollout) are skipped by the typed consumers instead of crashing them.
func TestProgressAndLogSkipMalformedEvents(t *testing.T) {
	var out, logs bytes.Buffer
	l := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, typ := range []protocol.EventType{protocol.EventToolCallBegin, protocol.EventToolCallEnd, protocol.EventThreadStarted, protocol.EventApprovalResolved, protocol.EventBackground, protocol.EventStatusChanged, protocol.EventApprovalRequested} {
		ev := protocol.Event{Type: typ, ThreadID: "t"}
		printProgress(&out, "root", ev)
		app.LogEvent(l, ev)
	}
	if out.Len() != 0 {
		t.Errorf("progress printed malformed events: %q", out.String())
	}
	if n := strings.Count(logs.String(), "malformed engine event"); n != 7 {
		t.Errorf("logged %d malformed events, want 7:\n%s", n, logs.String())
	}
	call := protocol.ToolCall{CallID: "c", Name: "Task", Summary: "Explore: find → goal (1 turns, 15 tokens)"}
	printProgress(&out, "root", protocol.NewEvent("t", "u", protocol.ToolCallEndMsg{Call: call}))
	if got := out.String(); got != "[t]   ✓ Explore: find → goal (1 turns, 15 tokens)\n" {
		t.Errorf("progress = %q", got)
	}
}
