package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/visible"
)

// liveMCP holds every MCP manager this process started, so main can stop
// their servers before it exits (no orphans) even if a session did not
// shut down cleanly.
var liveMCP struct {
	mu   sync.Mutex
	mgrs []*mcp.Manager
}

// trackMCP keeps a session's MCP manager for liveMCPStatus and
// closeAllMCP (the session itself stops it when it closes).
func trackMCP(m *mcp.Manager) {
	liveMCP.mu.Lock()
	liveMCP.mgrs = append(liveMCP.mgrs, m)
	liveMCP.mu.Unlock()
}

// liveMCPStatus lists the MCP servers of every session this process runs,
// one entry per name (a started one over one that has not started); with
// no session yet, the configured servers, not started.
func liveMCPStatus(cfg *config.Config) []mcp.ServerStatus {
	liveMCP.mu.Lock()
	mgrs := append([]*mcp.Manager(nil), liveMCP.mgrs...)
	liveMCP.mu.Unlock()
	byName := map[string]mcp.ServerStatus{}
	for name, c := range cfg.MCPServers {
		st := mcp.ServerStatus{Name: name, State: mcp.StateIdle, Transport: "stdio"}
		if c.URL != "" {
			st.Transport = "http"
		}
		if !c.IsEnabled() {
			st.State = mcp.StateDisabled
		}
		byName[name] = st
	}
	for _, m := range mgrs {
		for _, st := range m.Status() {
			if old, ok := byName[st.Name]; !ok || (old.State != mcp.StateReady && st.State != mcp.StateClosed) {
				byName[st.Name] = st
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]mcp.ServerStatus, 0, len(names))
	for _, n := range names {
		out = append(out, byName[n])
	}
	return out
}

// closeAllMCP stops every MCP server this process started.
func closeAllMCP() {
	liveMCP.mu.Lock()
	mgrs := liveMCP.mgrs
	liveMCP.mgrs = nil
	liveMCP.mu.Unlock()
	for _, m := range mgrs {
		_ = m.Close()
	}
}

// mcpStatusLines is one line per server for the TUI's /mcp.
func mcpStatusLines(st []mcp.ServerStatus) []string {
	out := make([]string, 0, len(st))
	for _, s := range st {
		line := fmt.Sprintf("%s: %s", s.Name, s.State)
		if s.State == mcp.StateReady {
			line += fmt.Sprintf(", %d tools", s.Tools)
		}
		if s.Error != "" {
			line += ": " + s.Error
		}
		if s.Source != "" {
			line += " (" + s.Source + ")"
		}
		out = append(out, line)
	}
	return out
}

func newMCPCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "list, add and remove MCP servers ([mcp_servers] in config.toml)"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "list the configured MCP servers (config.toml and the project's .mcp.json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCPList(g, asJSON, cmd.OutOrStdout())
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	var env []string
	var url, bearer string
	add := &cobra.Command{
		Use:   "add NAME [--env K=V]... (--url URL | -- COMMAND [ARGS]...)",
		Short: "add an MCP server to config.toml",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPAdd(args[0], args[1:], env, url, bearer, cmd.OutOrStdout())
		},
	}
	add.Flags().StringArrayVar(&env, "env", nil, "environment variable for a stdio server, K=V (repeatable)")
	add.Flags().StringVar(&url, "url", "", "URL of a Streamable HTTP server")
	add.Flags().StringVar(&bearer, "bearer-token-env-var", "", "environment variable holding the bearer token (HTTP servers)")
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "remove an MCP server from config.toml",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPRemove(args[0], cmd.OutOrStdout())
		},
	}
	cmd.AddCommand(list, add, remove)
	return cmd
}

type mcpListEntry struct {
	Name      string           `json:"name"`
	Source    string           `json:"source"`
	Enabled   bool             `json:"enabled"`
	Transport string           `json:"transport"`
	Server    config.MCPServer `json:"config"`
}

func runMCPList(g *globalFlags, asJSON bool, w io.Writer) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	cwd, err := workingDir(g)
	if err != nil {
		return err
	}
	var out []mcpListEntry
	add := func(name, source string, s config.MCPServer) {
		e := mcpListEntry{Name: name, Source: source, Enabled: s.IsEnabled(), Transport: "stdio", Server: redact(s)}
		if s.URL != "" {
			e.Transport = "http"
		}
		out = append(out, e)
	}
	for name, s := range cfg.MCPServers {
		add(name, filepath.Join(cfg.Home, "config.toml"), s)
	}
	if path := mcp.FindProjectFile(cwd); path != "" {
		servers, _, warns, err := mcp.LoadProjectFile(path)
		for _, w := range warns {
			fmt.Fprintln(os.Stderr, "grove: warning:", visible.Text(w))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "grove: warning:", visible.Text(err.Error()))
		}
		for name, s := range servers {
			if _, dup := cfg.MCPServers[name]; !dup {
				add(name, path+" (needs approval on first use)", s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(w, "no MCP servers configured (add one with grove mcp add)")
		return nil
	}
	tw := tabwriter.NewWriter(visible.NewWriter(w), 0, 4, 2, ' ', 0) // .mcp.json is repository content
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tENABLED\tTARGET\tSOURCE")
	for _, e := range out {
		target := e.Server.URL
		if target == "" {
			target = strings.Join(append([]string{e.Server.Command}, e.Server.Args...), " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", e.Name, e.Transport, e.Enabled, target, e.Source)
	}
	return tw.Flush()
}

// redact hides env and header values (they may hold secrets) in listings.
func redact(s config.MCPServer) config.MCPServer {
	hide := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k := range m {
			out[k] = "***"
		}
		return out
	}
	s.Env = hide(s.Env)
	s.HTTPHeaders = hide(s.HTTPHeaders)
	return s
}

func runMCPAdd(name string, command, env []string, url, bearer string, w io.Writer) error {
	s := config.MCPServer{URL: url, BearerTokenEnvVar: bearer}
	if len(command) > 0 {
		s.Command, s.Args = command[0], command[1:]
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--env %q: expected KEY=VALUE", kv)
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	if err := s.Validate(name); err != nil {
		return err
	}
	home, err := config.Home()
	if err != nil {
		return err
	}
	if err := refuseToShadowCodex(home); err != nil {
		return err
	}
	path, err := config.AddMCPServer(home, name, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "added MCP server %s to %s\n", name, path)
	return nil
}

// refuseToShadowCodex stops `mcp add` from creating grove's config.toml
// while grove runs on Codex's: the new file would replace all of Codex's
// settings at the next start, silently.
func refuseToShadowCodex(home string) error {
	own := filepath.Join(home, "config.toml")
	if _, err := os.Stat(own); err == nil {
		return nil
	}
	codex := filepath.Join(config.CodexHome(), "config.toml")
	if _, err := os.Stat(codex); err != nil {
		return nil
	}
	return fmt.Errorf("grove has no %s and uses Codex's %s: adding a server would create the first, and grove would stop reading Codex's settings; copy it first (cp %s %s), or add the server to Codex's file", own, codex, codex, own)
}

func runMCPRemove(name string, w io.Writer) error {
	home, err := config.Home()
	if err != nil {
		return err
	}
	path, err := config.RemoveMCPServer(home, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "removed MCP server %s from %s\n", name, path)
	return nil
}
