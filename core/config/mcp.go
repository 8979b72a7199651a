package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// MCPServer is one `[mcp_servers.<name>]` table, in Codex's shape so an
// existing Codex setup works unchanged. A server has either a command
// (stdio) or a url (Streamable HTTP).
type MCPServer struct {
	// stdio
	Command string            `toml:"command,omitempty" json:"command,omitempty"`
	Args    []string          `toml:"args,omitempty" json:"args,omitempty"`
	Env     map[string]string `toml:"env,omitempty" json:"env,omitempty"`
	// EnvVars (Codex's env_vars) name variables passed from grove's own
	// environment; Env wins for a name in both.
	EnvVars []MCPEnvVar `toml:"env_vars,omitempty" json:"env_vars,omitempty"`
	Cwd     string      `toml:"cwd,omitempty" json:"cwd,omitempty"`
	// Streamable HTTP
	URL               string            `toml:"url,omitempty" json:"url,omitempty"`
	HTTPHeaders       map[string]string `toml:"http_headers,omitempty" json:"http_headers,omitempty"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers,omitempty" json:"env_http_headers,omitempty"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var,omitempty" json:"bearer_token_env_var,omitempty"`
	// Both
	StartupTimeoutSec *float64 `toml:"startup_timeout_sec,omitempty" json:"startup_timeout_sec,omitempty"`
	// StartupTimeoutMs is Codex's startup_timeout_ms; it wins over _sec.
	StartupTimeoutMs *int64   `toml:"startup_timeout_ms,omitempty" json:"startup_timeout_ms,omitempty"`
	ToolTimeoutSec   *float64 `toml:"tool_timeout_sec,omitempty" json:"tool_timeout_sec,omitempty"`
	Enabled          *bool    `toml:"enabled,omitempty" json:"enabled,omitempty"`
	// Required (Codex's required): a server that cannot start fails
	// grove exec instead of running without its tools.
	Required      bool     `toml:"required,omitempty" json:"required,omitempty"`
	EnabledTools  []string `toml:"enabled_tools,omitempty" json:"enabled_tools,omitempty"`
	DisabledTools []string `toml:"disabled_tools,omitempty" json:"disabled_tools,omitempty"`
	// Trusted (a grove key) lets the server's tools run without asking
	// under untrusted / on-request: default_tools_approval_mode = approve
	// when that key is not set.
	Trusted bool `toml:"trusted,omitempty" json:"trusted,omitempty"`
	// DefaultToolsApprovalMode and Tools (Codex's keys) say when a tool's
	// calls ask for approval (mcp_approval.go).
	DefaultToolsApprovalMode MCPApprovalMode          `toml:"default_tools_approval_mode,omitempty" json:"default_tools_approval_mode,omitempty"`
	Tools                    map[string]MCPToolConfig `toml:"tools,omitempty" json:"tools,omitempty"`
	// SupportsParallelToolCalls (Codex's key): the server's tools may run
	// at the same time as the other calls of one model reply. Without it
	// each of its calls runs alone, as in Codex.
	SupportsParallelToolCalls bool `toml:"supports_parallel_tool_calls,omitempty" json:"supports_parallel_tool_calls,omitempty"`
	// Name is Codex's legacy display name: Codex accepts it and gives it
	// no meaning (the table's key names the server), and so does grove.
	Name string `toml:"name,omitempty" json:"name,omitempty"`
}

// MCP defaults (Codex's).
const (
	DefaultMCPStartupTimeout = 10 * time.Second
	DefaultMCPToolTimeout    = 60 * time.Second
)

// mcpServerName is what a server name may hold: it becomes part of tool
// names (mcp__<server>__<tool>), which providers restrict to these.
var mcpServerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// IsEnabled reports whether the server is on (absent = on).
func (s MCPServer) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// StartupTimeout is startup_timeout_ms, else startup_timeout_sec, else
// the default.
func (s MCPServer) StartupTimeout() time.Duration {
	if s.StartupTimeoutMs != nil && *s.StartupTimeoutMs > 0 {
		return time.Duration(*s.StartupTimeoutMs) * time.Millisecond
	}
	return secs(s.StartupTimeoutSec, DefaultMCPStartupTimeout)
}

// MCPEnvVar is one env_vars entry: a name, or { name, source } in Codex's
// table form.
type MCPEnvVar struct {
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
}

// UnmarshalTOML reads a name or a { name, source } table.
func (v *MCPEnvVar) UnmarshalTOML(raw any) error {
	switch raw := raw.(type) {
	case string:
		v.Name = raw
		return nil
	case map[string]any:
		for k, x := range raw {
			s, ok := x.(string)
			switch {
			case !ok:
				return fmt.Errorf("env_vars: %s must be a string", k)
			case k == "name":
				v.Name = s
			case k == "source":
				v.Source = s
			default:
				return fmt.Errorf("env_vars: unknown key %q (expected name and source)", k)
			}
		}
		return nil
	}
	return fmt.Errorf("env_vars: expected a variable name or { name = ..., source = ... }")
}

// ProcessEnv is the environment a stdio server gets on top of the
// inherited basics: each env_vars name grove has a value for, then env.
func (s MCPServer) ProcessEnv(lookup func(string) (string, bool)) map[string]string {
	out := map[string]string{}
	for _, v := range s.EnvVars {
		if val, ok := lookup(v.Name); ok {
			out[v.Name] = val
		}
	}
	for k, v := range s.Env {
		out[k] = v
	}
	return out
}

// ToolTimeout is tool_timeout_sec or the default.
func (s MCPServer) ToolTimeout() time.Duration { return secs(s.ToolTimeoutSec, DefaultMCPToolTimeout) }

func secs(v *float64, def time.Duration) time.Duration {
	if v == nil || *v <= 0 {
		return def
	}
	return time.Duration(*v * float64(time.Second))
}

// Validate checks one server's table; name is its key.
func (s MCPServer) Validate(name string) error {
	if !mcpServerName.MatchString(name) {
		return fmt.Errorf("mcp_servers.%s: the name may hold only letters, digits, _ and - (at most 64)", name)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("mcp_servers.%s: set command (stdio server) or url (Streamable HTTP server)", name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("mcp_servers.%s: set command or url, not both", name)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return fmt.Errorf("mcp_servers.%s: args, env and cwd apply to command servers, not url ones", name)
	case s.Command != "" && (len(s.HTTPHeaders) > 0 || len(s.EnvHTTPHeaders) > 0 || s.BearerTokenEnvVar != ""):
		return fmt.Errorf("mcp_servers.%s: http_headers, env_http_headers and bearer_token_env_var apply to url servers, not command ones", name)
	}
	if err := s.validateApprovalModes(name); err != nil {
		return err
	}
	for _, v := range s.EnvVars {
		if v.Name == "" || strings.ContainsAny(v.Name, "=\x00") {
			return fmt.Errorf("mcp_servers.%s.env_vars: bad variable name %q", name, v.Name)
		}
		if v.Source != "" && v.Source != "local" {
			return fmt.Errorf("mcp_servers.%s.env_vars: %s: source %q is not supported (grove runs servers locally: use local)", name, v.Name, v.Source)
		}
	}
	if s.StartupTimeoutMs != nil && *s.StartupTimeoutMs < 0 {
		return fmt.Errorf("mcp_servers.%s.startup_timeout_ms %d: must not be negative", name, *s.StartupTimeoutMs)
	}
	for k, v := range map[string]*float64{"startup_timeout_sec": s.StartupTimeoutSec, "tool_timeout_sec": s.ToolTimeoutSec} {
		if v != nil && *v < 0 {
			return fmt.Errorf("mcp_servers.%s.%s %v: must not be negative", name, k, *v)
		}
	}
	return nil
}

// validateMCP drops invalid `[mcp_servers]` entries with a warning: one
// broken server never keeps grove (or the other servers) from starting.
func (c *Config) validateMCP() {
	names := make([]string, 0, len(c.MCPServers))
	for n := range c.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := c.MCPServers[n].Validate(n); err != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("config: %v; server ignored", err))
			delete(c.MCPServers, n)
		}
	}
}
