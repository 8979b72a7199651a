package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// /ps lists each running session with its agent, command and age; a
// command carrying an escape sequence is shown without it.
func TestPSLineListsSessionsSafely(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	line := psLine([]ProcessInfo{
		{ID: 48213, Agent: "thread-abcdef123456", Command: "npm run dev", Started: now.Add(-3 * time.Minute)},
		{ID: 1001, Agent: "x", Command: "printf '\x1b]52;c;cHduZWQ=\x07\x1b[2J'", Started: now.Add(-2 * time.Second)},
	}, now)
	want := "2 running: 48213 123456 `npm run dev` 3m0s · 1001 x `printf '·]52;c;cHduZWQ=··[2J'` 2s · /ps kill <id>"
	if line != want {
		t.Fatalf("got  %q\nwant %q", line, want)
	}
	if strings.ContainsAny(line, "\x1b\x07") {
		t.Fatal("an escape sequence reached the line")
	}
	if psLine(nil, now) != "no running sessions" {
		t.Fatal("empty listing")
	}
}

// The tree shows a row per running session under its agent.
func TestTreeShowsAgentsSessions(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	m := Model{now: func() time.Time { return now }, procs: &procCache{src: func() []ProcessInfo {
		return []ProcessInfo{{ID: 4242, Agent: "a1", Command: "npm run dev\x1b[2J", Started: now.Add(-90 * time.Second)}, {ID: 7, Agent: "other", Command: "x"}}
	}}}
	rows := m.sessionRows("a1")
	if len(rows) != 1 || rows[0] != "$ npm run dev·[2J · 1m30s · 4242" {
		t.Fatalf("rows %q", rows)
	}
}

// A finished command's card never hands the terminal an escape sequence
// the command printed (a tty session's output is full of them): OSC 52
// (clipboard), a title, a screen clear are shown inert.
func TestFinishedCommandCardShowsNoEscapeSequence(t *testing.T) {
	s := newSession()
	s.apply(started(protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot, StartedAt: t0}, 0))
	begin := ev(protocol.EventToolCallBegin, rootID, time.Second)
	begin.Tool = &protocol.ToolCall{CallID: "x", Name: "exec_command", Arguments: `{"cmd":"evil\u001b]52;c;cHduZWQ=\u0007","tty":true}`}
	s.apply(begin)
	end := ev(protocol.EventToolCallEnd, rootID, 2*time.Second)
	end.Tool = &protocol.ToolCall{CallID: "x", Name: "exec_command", Output: "Chunk ID: 000001\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b]0;title\x07visible\r\n"}
	s.apply(end)
	e := s.threads[rootID].toolIdx["x"]
	e.collapsed = false
	r := &renderer{th: newTheme(), now: time.Now}
	joined := strings.Join(r.toolLines(e, 80), "\n")
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\r"} {
		if strings.Contains(joined, bad) {
			t.Fatalf("the card hands the terminal %q: %q", bad, joined)
		}
	}
	if !strings.Contains(joined, "visible") {
		t.Fatalf("the text itself is lost: %q", joined)
	}
}
