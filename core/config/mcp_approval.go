package config

import (
	"fmt"
	"sort"
)

// MCPApprovalMode is Codex's AppToolApproval: when a call of an MCP
// server's tool asks for approval (mcp_servers.<name>.
// default_tools_approval_mode and mcp_servers.<name>.tools.<tool>.
// approval_mode).
type MCPApprovalMode string

// The modes Codex accepts (codex-rs/config/src/mcp_types.rs).
const (
	// MCPApprovalAuto (the default): grove's rule for MCP tools
	// (docs/mcp.md: ask under untrusted / on-request for a tool not
	// annotated read-only).
	MCPApprovalAuto MCPApprovalMode = "auto"
	// MCPApprovalPrompt asks before every call, read-only tools too.
	MCPApprovalPrompt MCPApprovalMode = "prompt"
	// MCPApprovalWrites asks before every call of a tool not annotated
	// read-only.
	MCPApprovalWrites MCPApprovalMode = "writes"
	// MCPApprovalApprove never asks.
	MCPApprovalApprove MCPApprovalMode = "approve"
)

// MCPToolConfig is one `[mcp_servers.<name>.tools.<tool>]` table.
type MCPToolConfig struct {
	ApprovalMode MCPApprovalMode `toml:"approval_mode,omitempty" json:"approval_mode,omitempty"`
}

func (m MCPApprovalMode) valid() bool {
	switch m {
	case "", MCPApprovalAuto, MCPApprovalPrompt, MCPApprovalWrites, MCPApprovalApprove:
		return true
	}
	return false
}

// ToolApprovalMode is the mode of one tool (the server's own name for it),
// in Codex's order: the tool's approval_mode, else the server's
// default_tools_approval_mode, else approve for a server marked trusted
// (grove's key), else auto.
func (s MCPServer) ToolApprovalMode(tool string) MCPApprovalMode {
	if m := s.Tools[tool].ApprovalMode; m != "" {
		return m
	}
	if s.DefaultToolsApprovalMode != "" {
		return s.DefaultToolsApprovalMode
	}
	if s.Trusted {
		return MCPApprovalApprove
	}
	return MCPApprovalAuto
}

// validateApprovalModes checks the server's approval modes: a misspelt
// mode would otherwise leave a tool the user meant to guard unguarded.
func (s MCPServer) validateApprovalModes(name string) error {
	const want = "expected auto, prompt, writes or approve"
	if !s.DefaultToolsApprovalMode.valid() {
		return fmt.Errorf("mcp_servers.%s.default_tools_approval_mode %q: %s", name, s.DefaultToolsApprovalMode, want)
	}
	tools := make([]string, 0, len(s.Tools))
	for t := range s.Tools {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		if m := s.Tools[t].ApprovalMode; !m.valid() {
			return fmt.Errorf("mcp_servers.%s.tools.%s.approval_mode %q: %s", name, t, m, want)
		}
	}
	return nil
}
