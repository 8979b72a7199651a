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
