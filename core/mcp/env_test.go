package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/protocol"
)

// issue 21: a stdio server gets the environment commands get (provider
// key and credential-looking variables gone, by name and by value), plus
// exactly the entries of its env table.
func TestStdioServerEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-mcp-do-not-leak")
	t.Setenv("KEY", "sk-mcp-do-not-leak")
	t.Setenv("PGPASSWORD", "pg-mcp-do-not-leak")
	t.Setenv("DATABASE_URL", "postgres://u:db-mcp-do-not-leak@h/d")
	t.Setenv("GROVE_MCP_VISIBLE", "visible")
	shellenv.SetPolicy(shellenv.Policy{})
	t.Cleanup(func() { shellenv.SetPolicy(shellenv.Policy{}) })
	out := filepath.Join(t.TempDir(), "env")
	srv := config.MCPServer{Command: os.Args[0], Env: map[string]string{
		"GROVE_MCP_TEST_SERVER": "env", "GROVE_MCP_TEST_ENV_OUT": out, "SERVICE_TOKEN": "named-explicitly"}}
	reg, _ := newRegistry(t, map[string]config.MCPServer{"e": srv})
	rec := &recorder{decision: protocol.DecisionApproved}
	env := rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	if res := reg.Run(context.Background(), env, "mcp__e__echo", rawArgs(t, map[string]string{"text": "hi"})); res.IsError {
		t.Fatalf("echo: %+v", res)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	if strings.Contains(got, "do-not-leak") || !strings.Contains(got, "GROVE_MCP_VISIBLE=visible") || !strings.Contains(got, "SERVICE_TOKEN=named-explicitly") {
		t.Fatalf("server environment:\n%s", got)
	}
}
