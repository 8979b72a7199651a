package tui

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestClaudeToolsShowAsGrovesOwn: a Bash call reads as a command, an Edit
// and a MultiEdit as a diff of the file they change.
func TestClaudeToolsShowAsGrovesOwn(t *testing.T) {
	bash := &protocol.ToolCall{Name: "Bash", Arguments: `{"command":"go test ./...","description":"Run tests"}`}
	if got := toolSummary(bash); got != "$ go test ./..." {
		t.Errorf("Bash summary = %q", got)
	}
	edit := &protocol.ToolCall{Name: "Edit", Arguments: `{"file_path":"/w/a.go","old_string":"a := 1\nb := 2","new_string":"a := 3"}`}
	files := parsePatch(edit.Patch())
	if len(files) != 1 || files[0].path != "/w/a.go" || files[0].add != 1 || files[0].del != 2 {
		t.Fatalf("Edit as a patch: %+v", files)
	}
	if got := toolSummary(edit); got != "/w/a.go (+1 -2)" {
		t.Errorf("Edit summary = %q", got)
	}
	multi := &protocol.ToolCall{Name: "MultiEdit", Arguments: `{"file_path":"/w/b.go","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"q"}]}`}
	if got := toolSummary(multi); got != "/w/b.go (+2 -2)" {
		t.Errorf("MultiEdit summary = %q", got)
	}
	write := &protocol.ToolCall{Name: "Write", Arguments: `{"file_path":"/w/n.go","content":"package n\n"}`}
	if got := toolSummary(write); got != "/w/n.go (+1 -0)" {
		t.Errorf("Write summary = %q", got)
	}
}
