package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// TestToolProgressShowsOnTheRunningCard: an MCP tool's progress appears
// under its running call, cleaned of escape sequences, and goes away when
// the call ends.
func TestToolProgressShowsOnTheRunningCard(t *testing.T) {
	s := newSession()
	s.apply(started(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot, StartedAt: t0}, 0))
	begin := ev(protocol.EventToolCallBegin, rootID, time.Second)
	begin.Tool = &protocol.ToolCall{CallID: "c1", Name: "mcp__docs__index"}
	s.apply(begin)
	p := ev(protocol.EventToolProgress, rootID, 2*time.Second)
	p.Tool = &protocol.ToolCall{CallID: "c1", Name: "mcp__docs__index"}
	p.Message = "\x1b[31m3/10\x1b[0m pages\x07\nsecond line"
	tv := s.apply(p)
	e := tv.toolIdx["c1"]
	if e == nil || e.progress != "3/10 pages" {
		t.Fatalf("progress %+v", e)
	}
	r := &renderer{th: newTheme(), now: time.Now}
	if lines := r.toolLines(e, 80); len(lines) != 2 || !strings.Contains(ansiStrip(lines[1]), "3/10 pages") {
		t.Fatalf("running card lines %q", lines)
	}
	end := ev(protocol.EventToolCallEnd, rootID, 3*time.Second)
	end.Tool = &protocol.ToolCall{CallID: "c1", Name: "mcp__docs__index", Output: "indexed"}
	s.apply(end)
	for _, l := range r.toolLines(e, 80) {
		if strings.Contains(l, "3/10") {
			t.Fatalf("finished card still shows progress: %q", l)
		}
	}
}

// TestRunningCommandShowsLiveTail: a running exec_command card shows the
// last lines of its output as it streams, cleaned; the finished card shows
// the result as before.
func TestRunningCommandShowsLiveTail(t *testing.T) {
	s := newSession()
	s.apply(started(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot, StartedAt: t0}, 0))
	begin := ev(protocol.EventToolCallBegin, rootID, time.Second)
	begin.Tool = &protocol.ToolCall{CallID: "x", Name: "exec_command", Arguments: `{"cmd":"make"}`}
	s.apply(begin)
	for i, d := range []string{"step 1\nstep 2\n", "step 3\n\x1b[32mstep", " 4\x1b[0m\n10%\r50%\r"} {
		de := ev(protocol.EventExecOutputDelta, rootID, time.Duration(2+i)*time.Second)
		de.Tool, de.Delta = &protocol.ToolCall{CallID: "x", Name: "exec_command"}, d
		s.apply(de)
	}
	e := s.threads[rootID].toolIdx["x"]
	r := &renderer{th: newTheme(), now: time.Now}
	lines := r.toolLines(e, 80)
	var got []string
	for _, l := range lines[1:] {
		got = append(got, strings.TrimSpace(ansiStrip(l)))
	}
	if strings.Join(got, "|") != "step 3|step 4|50%" {
		t.Fatalf("live tail %q", got)
	}
	end := ev(protocol.EventToolCallEnd, rootID, 9*time.Second)
	end.Tool = &protocol.ToolCall{CallID: "x", Name: "exec_command", Output: "Exit code: 0\nWall time: 1.00 seconds\nOutput:\ndone\n"}
	s.apply(end)
	for _, l := range r.toolLines(e, 80) {
		if strings.Contains(l, "50%") {
			t.Fatalf("finished card still shows the live tail: %q", l)
		}
	}
}
