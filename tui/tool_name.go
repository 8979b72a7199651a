package tui

import "strings"

// displayToolName shows an MCP tool (mcp__<server>__<tool>) as
// "server › tool"; other names are shown as they are.
func displayToolName(name string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return name
	}
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return name
	}
	return server + " › " + tool
}
