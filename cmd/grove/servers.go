package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/mcp"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/cmd/grove/acp"
	"github.com/grovecli/grove/cmd/grove/appserver"
)

// groveVersion is reported to protocol clients.
const groveVersion = "0.1.0"

// listenFlag is the --listen flag of the server commands: stdio only.
func checkListen(listen string) error {
	if listen != "" && listen != "stdio://" {
		return fmt.Errorf("--listen %s: only stdio:// is supported", listen)
	}
	return nil
}

// serverSessions opens one core session per thread for a protocol
// server, with the client's per-session choices layered over the command
// line's and the client's own MCP servers (ACP).
func serverSessions(g *globalFlags) func(ctx context.Context, c appserver.ThreadConfig, mcpServers map[string]config.MCPServer, start app.Start) (*app.Session, error) {
	return func(ctx context.Context, c appserver.ThreadConfig, mcpServers map[string]config.MCPServer, start app.Start) (*app.Session, error) {
		gg := *g
		gg.overrides = append([]string(nil), g.overrides...)
		if c.Cwd != "" {
			gg.cd = c.Cwd
		}
		if c.Model != "" {
			gg.model = c.Model
		}
		if c.ApprovalPolicy != "" {
			gg.approval = string(c.ApprovalPolicy)
		}
		if c.Sandbox != "" {
			gg.sandbox = string(c.Sandbox)
		}
		// thread/start's runtimeWorkspaceRoots are --add-dir's for this
		// session only.
		gg.addDirs = append(append([]string(nil), g.addDirs...), c.RuntimeWorkspaceRoots...)
		// Not headless: the client answers approvals.
		return openSession(ctx, &gg, sessionOpts{mcpServers: mcpServers, ephemeral: c.Ephemeral, originator: c.Originator, start: start})
	}
}

func newAppServerCmd(g *globalFlags) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "app-server",
		Short: "Serve the Codex app-server v2 protocol (JSON-RPC lines) on stdio",
		Long: `Serve Codex's app-server v2 protocol on stdin/stdout: one JSON-RPC message
per line, without the "jsonrpc" header. Editors and other rich clients start
threads, run turns, answer approvals and see every sub-agent as a thread of
its own. See docs/app-server.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkListen(listen); err != nil {
				return err
			}
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			host, err := appServerHost(g, cfg)
			if err != nil {
				return err
			}
			cwd, err := workingDir(g)
			if err != nil {
				return err
			}
			open := serverSessions(g)
			return appserver.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), appserver.Options{
				Home: cfg.Home, Version: groveVersion, Host: host,
				OpenSession: func(ctx context.Context, c appserver.ThreadConfig, start app.Start) (*app.Session, error) {
					return open(ctx, c, nil, start)
				},
				Skills: discoverSkills, Cwd: cwd,
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "stdio://", "transport to serve on (stdio:// only)")
	return cmd
}

func newACPCmd(g *globalFlags) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdio (Zed, JetBrains, Neovim)",
		Long: `Serve the Agent Client Protocol on stdin/stdout, so editors that run ACP
agents (Zed's agent_servers, JetBrains, Neovim plugins) can run grove. Each ACP
session is a grove session; sub-agents show as tool calls of their parent.
See docs/acp.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkListen(listen); err != nil {
				return err
			}
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			host, err := appServerHost(g, cfg)
			if err != nil {
				return err
			}
			return acp.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), acp.Options{
				Version: groveVersion, Home: cfg.Home, ListModels: host.ModelIDs,
				OpenSession: func(ctx context.Context, cwd string, mcpServers map[string]config.MCPServer, start app.Start) (*app.Session, error) {
					return serverSessions(g)(ctx, appserver.ThreadConfig{Cwd: cwd}, mcpServers, start)
				},
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "stdio://", "transport to serve on (stdio:// only)")
	return cmd
}

// appServerHost describes the installation to the app-server's startup
// methods: the config file, the provider (and its /models) and the MCP
// servers of the sessions this process runs.
func appServerHost(g *globalFlags, cfg *config.Config) (*appserver.Host, error) {
	l, err := hostState(cfg)
	if err != nil {
		return nil, err
	}
	h := &appserver.Host{Config: cfg, Overrides: configOverrides(g), Provider: l.Provider, Models: l.Models,
		MCPStatus: func() []mcp.ServerStatus { return liveMCPStatus(cfg) }}
	if file := filepath.Join(cfg.Home, "config.toml"); fileExists(file) {
		h.ConfigFile = file
	}
	// After config/value/write: what a thread started now would read,
	// the provider's model list included.
	h.Reload = func() (appserver.Loaded, error) {
		c, err := loadConfig(g)
		if err != nil {
			return appserver.Loaded{}, err
		}
		return hostState(c)
	}
	// Before it: a content a thread could not start with is refused.
	h.Check = func(content []byte) error {
		c, err := readConfig(g, content)
		if err != nil {
			return err
		}
		_, err = hostState(c)
		return err
	}
	return h, nil
}

// hostState resolves cfg's provider and, unless it is the demo, the client
// that lists its models.
func hostState(cfg *config.Config) (appserver.Loaded, error) {
	prov, err := cfg.ResolveProvider(nil)
	if err != nil {
		return appserver.Loaded{}, err
	}
	l := appserver.Loaded{Config: cfg, Provider: prov}
	if !prov.Demo {
		client, err := providerClient(prov)
		if err != nil {
			return appserver.Loaded{}, err
		}
		l.Models = client
	}
	return l, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
