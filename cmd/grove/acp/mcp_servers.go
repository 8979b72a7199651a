package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/config"
)

// clientMCPServers turns the MCP servers a client sends with session/new or
// session/load into grove's configuration, so the session's MCP manager
// starts them like the ones in config.toml. The client's bytes are not
// trusted: each server is validated as a config table would be, and one
// grove cannot run (an invalid name, SSE or ACP transport, a duplicate) is
// skipped with a reason; the others still start.
func clientMCPServers(servers []sdk.McpServer) (map[string]config.MCPServer, []string) {
	out := map[string]config.MCPServer{}
	var skipped []string
	for i, s := range servers {
		var name string
		var c config.MCPServer
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			c = config.MCPServer{Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				c.Env = map[string]string{}
				for _, e := range s.Stdio.Env {
					c.Env[e.Name] = e.Value
				}
			}
		case s.Http != nil:
			name = s.Http.Name
			c = config.MCPServer{URL: s.Http.Url}
			if len(s.Http.Headers) > 0 {
				c.HTTPHeaders = map[string]string{}
				for _, h := range s.Http.Headers {
					c.HTTPHeaders[h.Name] = h.Value
				}
			}
		case s.Sse != nil:
			skipped = append(skipped, fmt.Sprintf("mcpServers[%d] %q: the SSE transport is not supported (use stdio or http)", i, s.Sse.Name))
			continue
		default:
			skipped = append(skipped, fmt.Sprintf("mcpServers[%d]: unsupported transport", i))
			continue
		}
		if _, dup := out[name]; dup {
			skipped = append(skipped, fmt.Sprintf("mcpServers[%d] %q: a server of that name was already given", i, name))
			continue
		}
		if err := c.Validate(name); err != nil {
			skipped = append(skipped, fmt.Sprintf("mcpServers[%d]: %v", i, err))
			continue
		}
		out[name] = c
	}
	return out, skipped
}
