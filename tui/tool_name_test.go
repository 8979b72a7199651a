package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestDisplayToolName(t *testing.T) {
	for in, want := range map[string]string{
		"mcp__everything__echo":   "everything › echo",
		"mcp__fs__read_text_file": "fs › read_text_file",
		"mcp__a__b__c":            "a › b__c",
		"exec_command":            "exec_command",
		"mcp__broken":             "mcp__broken",
		"mcp____x":                "mcp____x",
	} {
		if got := displayToolName(in); got != want {
			t.Errorf("displayToolName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMCPCommandShowsServers(t *testing.T) {
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: newFake(rootInfo()), Now: c.now, MCPServers: func() []string {
		return []string{"everything: ready, 13 tools", "github: failed: did not answer initialize"}
	}})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	m = typeText(mm.(Model), "/mcp")
	m, cmd := press(m, "enter")
	if cmd == nil {
		t.Fatal("/mcp returned no command")
	}
	mm, _ = m.Update(findFlash(t, cmd()))
	if got := screen(mm.(Model)); !strings.Contains(got, "everything: ready, 13 tools") || !strings.Contains(got, "github: failed") {
		t.Fatalf("screen after /mcp:\n%s", got)
	}
}

// findFlash digs the flashMsg out of a (possibly batched) command result.
func findFlash(t *testing.T, msg tea.Msg) tea.Msg {
	t.Helper()
	switch v := msg.(type) {
	case flashMsg:
		return v
	case tea.BatchMsg:
		for _, c := range v {
			if c == nil {
				continue
			}
			if f, ok := c().(flashMsg); ok {
				return f
			}
		}
	}
	t.Fatalf("no flash message in %T", msg)
	return nil
}
