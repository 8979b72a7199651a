package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestExecDemoOnTheTaskSurface: `grove exec --demo -c agents.surface=task`
// plays the demo with Task (one agent in the background, one synchronous),
// TaskOutput and complete_task; both agents end with goal, the worker's
// edit is real, and every --json event reads back as its typed message.
func TestExecDemoOnTheTaskSurface(t *testing.T) {
	noProviderEnv(t)
	out, errOut, err := runCLI(t, t.TempDir(), "", "--demo", "--keep-demo-dir", "exec", "--json=grove", "-c", "agents.surface=task", "show me")
	if err != nil {
		t.Fatalf("exec: %v\nstderr:\n%s", err, errOut)
	}
	ends := map[string]int{}
	final := ""
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev protocol.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not an event: %q", line)
		}
		msg, err := ev.Msg()
		if err != nil {
			t.Fatalf("event does not read back: %v", err)
		}
		switch m := msg.(type) {
		case protocol.ToolCallEndMsg:
			if m.Call.IsError && m.Call.Name != "read_file" { // the worker looks for greet.go first
				t.Errorf("%s failed: %s", m.Call.Name, m.Call.Output)
			}
			ends[m.Call.Name]++
			if m.Call.Name == "spawn_agent" || m.Call.Name == "wait" {
				t.Errorf("the Task surface offered %s", m.Call.Name)
			}
		case protocol.AgentMessageMsg:
			if strings.Contains(m.Text, "Demo complete") {
				final = m.Text
			}
		}
	}
	if ends["Task"] != 2 || ends["TaskOutput"] != 1 || ends["complete_task"] != 2 {
		t.Errorf("tool calls %v, want 2 Task, 1 TaskOutput, 2 complete_task", ends)
	}
	if strings.Count(final, ": goal — ") != 2 || !strings.Contains(final, "**explorer**") || !strings.Contains(final, "**worker**") {
		t.Errorf("final message:\n%s", final)
	}
	scratch, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "grove-demo-*"))
	if len(scratch) != 1 {
		t.Fatalf("scratch projects %v, want the one kept", scratch)
	}
	b, err := os.ReadFile(filepath.Join(scratch[0], "service", "greet.go"))
	if err != nil || !strings.Contains(string(b), "func Farewell") {
		t.Fatalf("greet.go not patched (%v):\n%s", err, b)
	}
}
