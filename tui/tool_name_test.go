package tui

import "testing"

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
