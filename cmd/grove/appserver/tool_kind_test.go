package appserver

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// A call's item follows its kind, not its name: Claude's Bash is a
// commandExecution with its command, Claude's Write a fileChange of its
// file (Codex's v2 ThreadItem::CommandExecution and ::FileChange).
func TestToolItemFollowsTheKind(t *testing.T) {
	bash := protocol.ToolCall{CallID: "b", Name: "Bash", Kind: protocol.ToolKindExec, Arguments: `{"command":"ls -la"}`}
	cmd, ok := toolItem(bash, "root", "/w").(protocol.AppCommandExecutionItem)
	if !ok || cmd.Command != "ls -la" || cmd.Cwd != "/w" {
		t.Fatalf("Bash item: %#v", toolItem(bash, "root", "/w"))
	}
	write := protocol.ToolCall{CallID: "w", Name: "Write", Kind: protocol.ToolKindPatch, Arguments: `{"file_path":"/w/new.txt","content":"hi\n"}`}
	fc, ok := toolItem(write, "root", "/w").(protocol.AppFileChangeItem)
	if !ok || len(fc.Changes) != 1 || fc.Changes[0].Path != "/w/new.txt" {
		t.Fatalf("Write item: %#v", toolItem(write, "root", "/w"))
	}
}
