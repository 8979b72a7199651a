package config

import (
	"strings"
	"testing"
)

// TestMCPApprovalKeysLoad reads Codex's per-server keys: the tools table,
// default_tools_approval_mode, supports_parallel_tool_calls and the legacy
// name, with no "not used" line for any of them; a mode Codex does not
// accept drops the server with a warning naming the key.
func TestMCPApprovalKeysLoad(t *testing.T) {
	home := writeConfig(t, `
[mcp_servers.docs]
command = "docs-mcp"
name = "Docs (legacy display name)"
default_tools_approval_mode = "prompt"
supports_parallel_tool_calls = true

[mcp_servers.docs.tools.search]
approval_mode = "approve"

[mcp_servers.docs.tools.delete]
approval_mode = "writes"

[mcp_servers.typo]
command = "x"
default_tools_approval_mode = "ask"

[mcp_servers.typo_tool]
command = "x"
tools.run = { approval_mode = "always" }
`)
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := cfg.MCPServers["docs"]
	if !docs.SupportsParallelToolCalls || docs.DefaultToolsApprovalMode != MCPApprovalPrompt || docs.Tools["search"].ApprovalMode != MCPApprovalApprove {
		t.Fatalf("docs = %+v", docs)
	}
	for _, name := range []string{"typo", "typo_tool"} {
		if _, ok := cfg.MCPServers[name]; ok {
			t.Errorf("server %s with a bad approval mode was kept", name)
		}
	}
	var bad []string
	for _, w := range cfg.Warnings {
		switch {
		case strings.Contains(w, "does not use these Codex keys"):
			t.Errorf("a key grove reads was reported unused: %s", w)
		case strings.Contains(w, "approval_mode"):
			bad = append(bad, w)
		}
	}
	if len(bad) != 2 || !strings.Contains(bad[0], `mcp_servers.typo.default_tools_approval_mode "ask"`) || !strings.Contains(bad[1], `mcp_servers.typo_tool.tools.run.approval_mode "always"`) {
		t.Errorf("warnings for bad modes: %q", bad)
	}
}

// TestToolApprovalModeOrder ports Codex's
// server_metadata_preserves_tool_approval_policy (the connection manager
// tests of Codex's codex-rs/codex-mcp crate): a tool's own
// approval_mode wins, else the server's default, else auto; grove's
// trusted = true stands for a default of approve.
func TestToolApprovalModeOrder(t *testing.T) {
	s := MCPServer{DefaultToolsApprovalMode: MCPApprovalPrompt, Tools: map[string]MCPToolConfig{"search": {ApprovalMode: MCPApprovalApprove}}}
	if s.ToolApprovalMode("read") != MCPApprovalPrompt || s.ToolApprovalMode("search") != MCPApprovalApprove {
		t.Fatalf("read %s search %s", s.ToolApprovalMode("read"), s.ToolApprovalMode("search"))
	}
	if m := (MCPServer{}).ToolApprovalMode("x"); m != MCPApprovalAuto {
		t.Errorf("no mode set: %s, want auto", m)
	}
	trusted := MCPServer{Trusted: true, Tools: map[string]MCPToolConfig{"rm": {ApprovalMode: MCPApprovalPrompt}}}
	if trusted.ToolApprovalMode("ls") != MCPApprovalApprove || trusted.ToolApprovalMode("rm") != MCPApprovalPrompt {
		t.Errorf("trusted: ls %s rm %s", trusted.ToolApprovalMode("ls"), trusted.ToolApprovalMode("rm"))
	}
	trusted.DefaultToolsApprovalMode = MCPApprovalWrites
	if trusted.ToolApprovalMode("ls") != MCPApprovalWrites {
		t.Errorf("default_tools_approval_mode must win over trusted: %s", trusted.ToolApprovalMode("ls"))
	}
}

// TestAgentsInterruptMessageAndJobRuntime ports Codex's
// load_config_resolves_agent_interrupt_message (config_tests.rs: absent =
// on, false = off) and its check that agents.job_max_runtime_seconds is at
// least 1.
func TestAgentsInterruptMessageAndJobRuntime(t *testing.T) {
	cfg, err := Load(writeConfig(t, "[agents]\nmax_threads = 2\n"), nil)
	if err != nil || !cfg.Agents.InterruptMessageOn() {
		t.Fatalf("absent interrupt_message: on=%v err=%v", cfg.Agents.InterruptMessageOn(), err)
	}
	cfg, err = Load(writeConfig(t, "[agents]\ninterrupt_message = false\njob_max_runtime_seconds = 1800\n"), nil)
	if err != nil || cfg.Agents.InterruptMessageOn() || *cfg.Agents.JobMaxRuntimeSeconds != 1800 {
		t.Fatalf("interrupt_message = false: on=%v err=%v", cfg.Agents.InterruptMessageOn(), err)
	}
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "agents.") {
			t.Errorf("warning for a key grove reads: %s", w)
		}
	}
	if _, err := Load(writeConfig(t, "[agents]\njob_max_runtime_seconds = 0\n"), nil); err == nil || !strings.Contains(err.Error(), "agents.job_max_runtime_seconds 0: must be at least 1") {
		t.Fatalf("job_max_runtime_seconds = 0: %v", err)
	}
}
