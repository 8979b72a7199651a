package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/protocol"
)

// ACP's kind, title and locations follow the call's kind: Claude's Bash,
// Read and Edit show as Codex's exec_command, read_file and apply_patch do.
func TestToolCallsFollowTheKind(t *testing.T) {
	for _, tc := range []struct {
		call  protocol.ToolCall
		kind  sdk.ToolKind
		title string
		loc   string
	}{
		{protocol.ToolCall{Name: "Bash", Kind: protocol.ToolKindExec, Arguments: `{"command":"go vet ./..."}`}, sdk.ToolKindExecute, "Run `go vet ./...`", ""},
		{protocol.ToolCall{Name: "Read", Kind: protocol.ToolKindRead, Arguments: `{"file_path":"/w/a.go"}`}, sdk.ToolKindRead, "Read /w/a.go", "/w/a.go"},
		{protocol.ToolCall{Name: "Edit", Kind: protocol.ToolKindPatch, Arguments: `{"file_path":"/w/b.go","old_string":"a","new_string":"b"}`}, sdk.ToolKindEdit, "Edit /w/b.go", "/w/b.go"},
		{protocol.ToolCall{Name: "Glob", Kind: protocol.ToolKindSearch, Arguments: `{"pattern":"**/*.go"}`}, sdk.ToolKindSearch, "Search **/*.go", ""},
	} {
		if k := toolKind(tc.call); k != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.call.Name, k, tc.kind)
		}
		if got := toolTitle(tc.call); got != tc.title {
			t.Errorf("%s: title %q, want %q", tc.call.Name, got, tc.title)
		}
		locs := toolLocations(tc.call, "/w")
		if (tc.loc == "") != (len(locs) == 0) || (tc.loc != "" && locs[0].Path != tc.loc) {
			t.Errorf("%s: locations %+v, want %q", tc.call.Name, locs, tc.loc)
		}
	}
}
