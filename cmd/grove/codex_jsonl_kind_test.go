package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Items follow the call's kind, not its name: a Claude-family Bash call is
// a command_execution item with its command, an Edit a file_change item
// naming its file (Codex's exec_events.rs CommandExecutionItem and
// FileChangeItem), each in Codex's shape.
func TestCodexJSONLItemsFollowTheKind(t *testing.T) {
	var out bytes.Buffer
	c := newCodexJSONL(&out, "root")
	code := 0
	for _, m := range []protocol.EventMsg{
		protocol.ToolCallBeginMsg{Call: protocol.ToolCall{CallID: "b", Name: "Bash", Kind: protocol.ToolKindExec, Arguments: `{"command":"go test ./..."}`}},
		protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "b", Name: "Bash", Kind: protocol.ToolKindExec, Arguments: `{"command":"go test ./..."}`, Output: "ok", ExitCode: &code}},
		protocol.ToolCallBeginMsg{Call: protocol.ToolCall{CallID: "e", Name: "Edit", Kind: protocol.ToolKindPatch, Arguments: `{"file_path":"/w/a.go","old_string":"x","new_string":"y"}`}},
		protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "e", Name: "Edit", Kind: protocol.ToolKindPatch, Arguments: `{"file_path":"/w/a.go","old_string":"x","new_string":"y"}`, Output: "ok"}},
	} {
		if err := c.event(protocol.NewEvent("root", "t1", m)); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines (command started and completed, file change), got %q", out.String())
	}
	for _, l := range lines {
		checkCodexShape(t, l)
	}
	if !strings.Contains(lines[1], `"type":"command_execution","command":"go test ./..."`) || !strings.Contains(lines[1], `"status":"completed"`) {
		t.Fatalf("command item: %s", lines[1])
	}
	if !strings.Contains(lines[2], `"type":"file_change"`) || !strings.Contains(lines[2], `"path":"/w/a.go","kind":"update"`) {
		t.Fatalf("file change item: %s", lines[2])
	}
}
