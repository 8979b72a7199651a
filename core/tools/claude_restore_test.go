package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// TestClaudeReadStateRestoredOnResume: after RestoreThread with the events
// of an earlier run, a file that run Read (or wrote) may be edited; one it
// Read that changed since is refused as modified; one it never touched, or
// whose Read failed, is refused as not read; another thread gets nothing.
func TestClaudeReadStateRestoredOnResume(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	for _, n := range []string{"read.txt", "written.txt", "changed.txt", "never.txt", "failed.txt", "viewed.txt", "relview.txt"} {
		write(t, env.Cwd, n, "old\n")
	}
	p := func(n string) string { return filepath.Join(env.Cwd, n) }
	ended := time.Now()
	call := func(name, file string, isErr bool) protocol.Event {
		args, _ := json.Marshal(map[string]string{"file_path": file})
		return protocol.Event{Type: protocol.EventToolCallEnd, ThreadID: "t", Timestamp: ended,
			Tool: &protocol.ToolCall{Name: name, Arguments: string(args), IsError: isErr}}
	}
	// A Bash view of a file counts as reading it (claude_bash_view.go).
	bash := func(cmd string) protocol.Event {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return protocol.Event{Type: protocol.EventToolCallEnd, ThreadID: "t", Timestamp: ended,
			Tool: &protocol.ToolCall{Name: ClaudeBash, Arguments: string(args)}}
	}
	events := []protocol.Event{
		call(ClaudeRead, p("read.txt"), false),
		call(ClaudeWrite, "written.txt", false), // relative: resolved against the thread's directory
		call(ClaudeRead, p("changed.txt"), false),
		call(ClaudeRead, p("failed.txt"), true),
		call("Bash", p("never.txt"), false),
		bash("cat " + p("viewed.txt")),
		bash("cat relview.txt"), // the directory it ran in is not recorded
	}
	r.RestoreThread("t", env.Cwd, events)
	later := ended.Add(2 * time.Second)
	if err := os.Chtimes(p("changed.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{"read.txt", "The file " + p("read.txt") + " has been updated."},
		{"written.txt", "The file " + p("written.txt") + " has been updated."},
		{"changed.txt", claudeModified},
		{"never.txt", claudeNotRead},
		{"failed.txt", claudeNotRead},
		{"viewed.txt", "The file " + p("viewed.txt") + " has been updated."},
		{"relview.txt", claudeNotRead},
	} {
		got := run(t, r, env, ClaudeEdit, map[string]any{"file_path": p(c.file), "old_string": "old", "new_string": "new"}).Output
		if len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("Edit of %s = %q, want it to begin %q", c.file, got, c.want)
		}
	}
	other := *env
	other.ThreadID = "u"
	write(t, env.Cwd, "read2.txt", "old\n")
	r.RestoreThread("t", env.Cwd, []protocol.Event{call(ClaudeRead, p("read2.txt"), false)})
	if got := run(t, r, &other, ClaudeEdit, map[string]any{"file_path": p("read2.txt"), "old_string": "old", "new_string": "new"}).Output; got != claudeNotRead {
		t.Errorf("another thread's Edit = %q, want %q", got, claudeNotRead)
	}
}
