package appserver

import (
	"encoding/json"

	"github.com/grovecli/grove/core/mcp"
)

// MCPServerStatus is Codex's McpServerStatus (mcpServerStatus/list).
type MCPServerStatus struct {
	Name              string             `json:"name"`
	AuthStatus        string             `json:"authStatus"`
	Tools             map[string]MCPTool `json:"tools"`
	Resources         []any              `json:"resources"`
	ResourceTemplates []any              `json:"resourceTemplates"`
}

// MCPTool is Codex's Tool (the MCP tool as its server describes it).
type MCPTool struct {
	Name        string          `json:"name"`
	Description *string         `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations map[string]any  `json:"annotations,omitempty"`
}

// mcpServers answers mcpServerStatus/list from the running MCP clients. A
// server the sessions have not started yet (grove starts them when an agent
// first needs tools) is listed with no tools. Resources are not listed:
// grove offers MCP tools only.
func (h *Host) mcpServers() []MCPServerStatus {
	out := []MCPServerStatus{}
	if h.MCPStatus == nil {
		return out
	}
	for _, st := range h.MCPStatus() {
		s := MCPServerStatus{Name: st.Name, AuthStatus: authStatus(h, st), Tools: map[string]MCPTool{},
			Resources: []any{}, ResourceTemplates: []any{}}
		for _, t := range st.ToolInfos {
			mt := MCPTool{Name: t.Name, Description: strPtr(t.Description), InputSchema: t.InputSchema}
			if len(mt.InputSchema) == 0 {
				mt.InputSchema = json.RawMessage(`{"type":"object"}`)
			}
			if t.ReadOnly {
				mt.Annotations = map[string]any{"readOnlyHint": true}
			}
			s.Tools[t.Name] = mt
		}
		out = append(out, s)
	}
	return out
}

// authStatus: stdio servers have no auth; an HTTP server with a bearer
// token variable uses one.
func authStatus(h *Host, st mcp.ServerStatus) string {
	if hc, _ := h.view(); st.Transport == "http" && hc != nil {
		if c, ok := hc.MCPServers[st.Name]; ok && c.BearerTokenEnvVar != "" {
			return "bearerToken"
		}
	}
	return "unsupported"
}
