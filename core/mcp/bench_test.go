package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// BenchmarkCallEchoStdio measures one tools/call through the registry
// (schema validation, name mapping, approval check, JSON-RPC over the
// stdio pipe to a child process and back).
func BenchmarkCallEchoStdio(b *testing.B) {
	m := New(Options{Servers: map[string]config.MCPServer{"t": stdioServer("serve")}, Cwd: b.TempDir()})
	defer m.Close()
	reg := tools.NewRegistry()
	reg.AddSource(m)
	env := (&recorder{}).env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	args := json.RawMessage(`{"text":"hi"}`)
	b.ResetTimer()
	for b.Loop() {
		if res := reg.Run(context.Background(), env, "mcp__t__echo", args); res.IsError {
			b.Fatal(res.Output)
		}
	}
}

// BenchmarkSpecsFor measures what every model request pays for the MCP
// tools once the servers run: listing them and filtering by policy.
func BenchmarkSpecsFor(b *testing.B) {
	m := New(Options{Servers: map[string]config.MCPServer{"t": stdioServer("serve")}, Cwd: b.TempDir()})
	defer m.Close()
	reg := tools.NewRegistry()
	if err := tools.RegisterCore(reg); err != nil {
		b.Fatal(err)
	}
	reg.AddSource(m)
	env := (&recorder{}).env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	allow := tools.Policy{Allow: []string{"mcp__t__*", "read_file"}}.Allowed
	reg.SpecsFor(context.Background(), env, allow)
	b.ResetTimer()
	for b.Loop() {
		reg.SpecsFor(context.Background(), env, allow)
	}
}
