package templates

import (
	"slices"
	"testing"
)

func TestClaudeMCPToolNamesKept(t *testing.T) {
	got, warnings := mapClaudeTools("a.md", []string{"Read", "mcp__github__create_issue", "mcp__everything", "mcp__fs__*"}, nil)
	want := []string{"read_file", "mcp__github__create_issue", "mcp__everything__*", "mcp__fs__*"}
	if !slices.Equal(got, want) {
		t.Fatalf("mapped %v, want %v", got, want)
	}
	if len(warnings) != 0 {
		t.Fatalf("MCP names must map without warnings: %v", warnings)
	}
}

// An agent file that names only MCP tools gets exactly those (they exist
// in grove now), not the deny-all of a list that names nothing.
func TestClaudeMCPOnlyToolsArePolicy(t *testing.T) {
	tpl, err := Parse("/x/gh.md", []byte("---\nname: gh\ndescription: d\ntools: mcp__github__create_issue\n---\nPrompt.\n"))
	if err != nil {
		t.Fatal(err)
	}
	allow, deny := tpl.Policy()
	if !slices.Equal(allow, []string{"mcp__github__create_issue"}) || len(deny) != 0 {
		t.Fatalf("policy allow=%q deny=%q", allow, deny)
	}
}
