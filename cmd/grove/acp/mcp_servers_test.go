package acp

import (
	"context"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/config"
)

// TestSessionNewStartsTheClientsMCPServers: the mcpServers of session/new
// reach the session's engine as MCP configuration (stdio with its env, http
// with its headers); ones grove cannot run are skipped, not fatal.
func TestSessionNewStartsTheClientsMCPServers(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir()}
	c := f.connect(t)
	defer c.stop()
	ctx := context.Background()
	init, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.McpCapabilities.Http {
		t.Fatalf("initialize: %v %+v", err, init.AgentCapabilities)
	}
	servers := []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "docs", Command: "docs-server", Args: []string{"--stdio"}, Env: []sdk.EnvVariable{{Name: "LEVEL", Value: "warn"}}}},
		{Http: &sdk.McpServerHttpInline{Type: "http", Name: "web", Url: "http://127.0.0.1:9/mcp", Headers: []sdk.HttpHeader{{Name: "X-Org", Value: "grove"}}}},
		{Sse: &sdk.McpServerSseInline{Type: "sse", Name: "old", Url: "http://127.0.0.1:9/sse"}},
		{Stdio: &sdk.McpServerStdio{Name: "bad name; rm -rf", Command: "x"}},
	}
	if _, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.cwd, McpServers: servers}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	got := f.mcp
	f.mu.Unlock()
	want := map[string]config.MCPServer{
		"docs": {Command: "docs-server", Args: []string{"--stdio"}, Env: map[string]string{"LEVEL": "warn"}},
		"web":  {URL: "http://127.0.0.1:9/mcp", HTTPHeaders: map[string]string{"X-Org": "grove"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("engine got MCP servers %+v, want %+v", got, want)
	}
}

func TestClientMCPServersSkipsWhatGroveCannotRun(t *testing.T) {
	_, skipped := clientMCPServers([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "a", Command: "x"}},
		{Stdio: &sdk.McpServerStdio{Name: "a", Command: "y"}},
		{Sse: &sdk.McpServerSseInline{Name: "s", Url: "http://127.0.0.1:9"}},
		{Stdio: &sdk.McpServerStdio{Name: "../evil", Command: "x"}},
		{},
	})
	if len(skipped) != 4 || !strings.Contains(strings.Join(skipped, "\n"), "SSE") {
		t.Fatalf("skipped %q", skipped)
	}
}
