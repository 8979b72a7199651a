package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadMCPServersInCodexShape(t *testing.T) {
	home := writeConfig(t, `
[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "x" }
cwd = "/tmp"
startup_timeout_sec = 20
tool_timeout_sec = 2.5
enabled_tools = ["create_issue"]
disabled_tools = ["delete_repo"]

[mcp_servers.docs]
url = "https://example.com/mcp"
bearer_token_env_var = "DOCS_TOKEN"
http_headers = { "X-Team" = "blue" }
env_http_headers = { "X-Org" = "DOCS_ORG" }
enabled = false

[mcp_servers.both]
command = "x"
url = "https://example.com"

[mcp_servers."bad name"]
command = "x"
`)
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	gh := cfg.MCPServers["github"]
	if gh.Command != "npx" || len(gh.Args) != 2 || gh.Env["GITHUB_TOKEN"] != "x" || gh.Cwd != "/tmp" ||
		gh.StartupTimeout() != 20*time.Second || gh.ToolTimeout() != 2500*time.Millisecond ||
		gh.EnabledTools[0] != "create_issue" || gh.DisabledTools[0] != "delete_repo" || !gh.IsEnabled() {
		t.Fatalf("github = %+v", gh)
	}
	docs := cfg.MCPServers["docs"]
	if docs.URL == "" || docs.BearerTokenEnvVar != "DOCS_TOKEN" || docs.HTTPHeaders["X-Team"] != "blue" || docs.EnvHTTPHeaders["X-Org"] != "DOCS_ORG" || docs.IsEnabled() {
		t.Fatalf("docs = %+v", docs)
	}
	if docs.StartupTimeout() != DefaultMCPStartupTimeout || docs.ToolTimeout() != DefaultMCPToolTimeout {
		t.Fatalf("defaults: %v %v", docs.StartupTimeout(), docs.ToolTimeout())
	}
	// Broken entries are dropped with a warning; the rest loads.
	if _, ok := cfg.MCPServers["both"]; ok {
		t.Fatal("a server with command and url was kept")
	}
	if _, ok := cfg.MCPServers["bad name"]; ok {
		t.Fatal("a server whose name cannot be part of a tool name was kept")
	}
	w := strings.Join(cfg.Warnings, "\n")
	if !strings.Contains(w, "mcp_servers.both: set command or url, not both") || !strings.Contains(w, "letters, digits") {
		t.Fatalf("warnings:\n%s", w)
	}
}

func TestAddAndRemoveMCPServerKeepTheRestOfTheFile(t *testing.T) {
	orig := "# my settings\nmodel = \"gpt-5\" # pinned\n\n[mcp_servers.keep]\ncommand = \"keep\"\n\n[tui]\nnotifications = false\n"
	home := writeConfig(t, orig)
	path, err := AddMCPServer(home, "everything", MCPServer{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: map[string]string{"A": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), orig) {
		t.Fatalf("add rewrote the existing text:\n%s", data)
	}
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.MCPServers["everything"]; s.Command != "npx" || s.Args[1] != "@modelcontextprotocol/server-everything" || s.Env["A"] != "1" {
		t.Fatalf("added server = %+v\n%s", s, data)
	}
	if _, err := AddMCPServer(home, "everything", MCPServer{Command: "x"}); err == nil {
		t.Fatal("adding a name twice must fail")
	}
	if _, err := RemoveMCPServer(home, "everything"); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveMCPServer(home, "keep"); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(filepath.Join(home, "config.toml"))
	if strings.Contains(string(data), "mcp_servers") || !strings.Contains(string(data), "# my settings\nmodel = \"gpt-5\" # pinned") || !strings.Contains(string(data), "[tui]\nnotifications = false") {
		t.Fatalf("after removing both:\n%s", data)
	}
	if _, err := RemoveMCPServer(home, "keep"); err == nil || !strings.Contains(err.Error(), "no MCP server keep") {
		t.Fatalf("removing a missing server: %v", err)
	}
	// A server defined inline is not something the text edit can remove.
	home = writeConfig(t, "mcp_servers = { inline = { command = \"x\" } }\n")
	if _, err := RemoveMCPServer(home, "inline"); err == nil || !strings.Contains(err.Error(), "edit it by hand") {
		t.Fatalf("inline server: %v", err)
	}
}
