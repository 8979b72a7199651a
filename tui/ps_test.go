package tui

import (
	"strings"
	"testing"
	"time"
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
