package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

type sessionOpts struct {
	headless        bool
	approveWorkdirs bool
	// demoDelay paces the demo model's streaming (TUI only).
	demoDelay time.Duration
	// exec: refuseDemo makes a missing provider an error instead of the
	// demo (unless asked for by name); ephemeral keeps the session's files
	// in a directory removed at shutdown; outputSchema constrains the
	// root's replies.
	refuseDemo   bool
	ephemeral    bool
	outputSchema json.RawMessage
	// mcpServers are a client's own MCP servers for this session (ACP),
	// started next to config.toml's; a client's server replaces a
	// configured one of the same name.
	mcpServers map[string]config.MCPServer
	// bypassHookTrust runs unreviewed hooks (--dangerously-bypass-hook-trust).
	bypassHookTrust bool
	// originator is sent as the `originator` header of every model
	// request, as Codex does (codex_exec; an app-server client's name).
	originator string
	// turnMetadata goes with every model request of a turn as Codex's
	// x-codex-turn-metadata header (--responsesapi-client-metadata).
	turnMetadata map[string]string
	// start says which root opens (new, resumed, forked).
	start app.Start
}

// loadConfig reads grove's config.toml (else Codex's) with the profile
// and the command-line overrides applied.
func loadConfig(g *globalFlags) (*config.Config, error) {
	cfg, err := readConfig(g, nil)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		g.warn(w)
	}
	cfg.WorkspaceWrite.WritableRoots = append(cfg.WorkspaceWrite.WritableRoots, g.addDirs...)
	// Seed 002: the built-in roles are copied into the user agents dir on
	// first run (once; see templates.SeedUserAgents).
	if _, err := templates.SeedUserAgents(cfg.Home); err != nil {
		g.warn(err.Error())
	}
	return cfg, nil
}

// readConfig is loadConfig without its side effects (warnings, seeding):
// content, when not nil, stands for $GROVE_HOME/config.toml, so the
// app-server can load an edit before it writes it.
func readConfig(g *globalFlags, content []byte) (*config.Config, error) {
	if err := checkSettingFlags(g); err != nil {
		return nil, err
	}
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	return config.LoadWith(config.LoadOptions{
		Home: home, CodexHome: config.CodexHome(), Profile: g.profile,
		Overrides: g.overrides, Flags: flagSettings(g), NoFiles: g.ignoreUserConfig,
		Content: content,
	})
}

// checkSettingFlags judges the flags that set the session's turn settings
// (the sandbox and the approval policy; exec's --full-auto's too) as the
// session core judges every front end's — the TUI's /approvals, ACP's
// set_mode, the app-server's turn/start — before the config is read: the
// error names the flag, then the field in the core's words. (A protocol
// server's per-thread values were checked by the server, as the client's.)
func checkSettingFlags(g *globalFlags) error {
	if g.sandbox != "" {
		if err := app.CheckTurnSettings(&protocol.TurnOverrides{Sandbox: &protocol.SandboxPolicy{Mode: protocol.SandboxMode(g.sandbox)}}); err != nil {
			return fmt.Errorf("--sandbox: %w", err)
		}
	}
	if err := app.CheckTurnSettings(&protocol.TurnOverrides{ApprovalPolicy: protocol.ApprovalPolicy(g.approval)}); err != nil {
		return fmt.Errorf("--ask-for-approval: %w", err)
	}
	return nil
}

// flagSettings are the config keys that command-line flags set.
func flagSettings(g *globalFlags) []string {
	var flags []string
	if g.model != "" {
		flags = append(flags, "model="+quote(g.model))
	}
	if g.sandbox != "" {
		flags = append(flags, "sandbox_mode="+quote(g.sandbox))
	}
	if g.approval != "" {
		flags = append(flags, "approval_policy="+quote(g.approval))
	}
	if g.demo {
		flags = append(flags, `model_provider="demo"`)
	}
	return flags
}

// configOverrides are the -c overrides with the flags that set config keys
// (the app-server's config/read shows them as the session's layer).
func configOverrides(g *globalFlags) []string {
	return append(append([]string(nil), g.overrides...), flagSettings(g)...)
}

// noProviderError is exec's error when nothing names a model: exec never
// falls back to the demo (a CI job that lost its key must fail).
func noProviderError(cfg *config.Config) error {
	where := "no config file (looked at " + strings.Join(cfg.LookedAt, " and ") + ")"
	if cfg.Source != "" {
		where = "config " + cfg.Source + " sets no model_provider"
	}
	return exitError{code: 1, msg: fmt.Sprintf("no model provider: $OPENAI_API_KEY (or $CODEX_API_KEY) is not set and %s; set one, or pass --demo for the offline demo model", where)}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// workingDir resolves --cd.
func workingDir(g *globalFlags) (string, error) {
	if g.cd == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(g.cd)
	if err != nil {
		return "", fmt.Errorf("--cd %s: %w", g.cd, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("--cd %s: %w", g.cd, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("--cd %s: not a directory", g.cd)
	}
	return abs, nil
}

// openSession resolves the command line into the session core's options
// and opens the session (its root started as o.start says).
func openSession(ctx context.Context, g *globalFlags, o sessionOpts) (*app.Session, error) {
	ao, err := sessionOptions(g, o)
	if err != nil {
		return nil, err
	}
	return app.Open(ctx, ao)
}

// sessionOptions reads the config and the provider, applies what the
// process shares (secrets for the log, the shell environment policy) and
// builds the model client: everything the core needs that comes from
// the command line.
func sessionOptions(g *globalFlags, o sessionOpts) (app.Options, error) {
	cfg, err := loadConfig(g)
	if err != nil {
		return app.Options{}, err
	}
	prov, err := cfg.ResolveProvider(nil)
	if err != nil {
		return app.Options{}, err
	}
	if prov.Demo && o.refuseDemo && cfg.ModelProvider == "" {
		return app.Options{}, noProviderError(cfg)
	}
	if prov.Demo && len(o.outputSchema) > 0 {
		return app.Options{}, errors.New("--output-schema: the offline demo model cannot follow a schema (configure a provider with the Responses or Chat Completions API)")
	}
	registerSecrets(cfg, prov.APIKey)
	if len(o.mcpServers) > 0 {
		merged := make(map[string]config.MCPServer, len(cfg.MCPServers)+len(o.mcpServers))
		for n, c := range cfg.MCPServers {
			merged[n] = c
		}
		for n, c := range o.mcpServers {
			merged[n] = c
		}
		cfg.MCPServers = merged
	}
	// Commands, MCP stdio servers and hooks all start from this policy.
	shellenv.SetPolicy(cfg.ShellEnvPolicy(prov.APIKey))
	ao := app.Options{
		Config: cfg, Headless: o.headless, ApproveWorkdirs: o.approveWorkdirs, Ephemeral: o.ephemeral,
		OutputSchema: o.outputSchema, BypassHookTrust: o.bypassHookTrust, TurnMetadata: o.turnMetadata,
		Host: g.host, Dirs: scratchDirs{}, OnMCP: trackMCP, Start: o.start,
	}
	if ao.Cwd, err = workingDir(g); err != nil {
		return app.Options{}, err
	}
	if err := sessionClient(g, o, prov, &ao); err != nil {
		return app.Options{}, err
	}
	return ao, nil
}

// sessionClient sets the model client: the demo's (which works in a
// scratch project the session owns unless --cd says otherwise), or the
// provider's with the originator header.
func sessionClient(g *globalFlags, o sessionOpts, prov config.Resolved, ao *app.Options) error {
	if prov.Demo {
		if g.cd == "" {
			cwd, err := demo.NewScratch()
			if err != nil {
				return err
			}
			ao.Cwd = cwd
			if !g.keepDemoDir {
				ao.Scratch = cwd
				registerScratch(cwd)
			}
		}
		ao.Provider, ao.Client = prov, demo.NewClient(o.demoDelay)
		return nil
	}
	if o.originator != "" {
		headers := make(map[string]string, len(prov.Headers)+1)
		for k, v := range prov.Headers {
			headers[k] = v
		}
		headers["originator"] = o.originator
		prov.Headers = headers
	}
	client, err := providerClient(prov)
	if err != nil {
		return err
	}
	ao.Provider, ao.Client = prov, client
	return nil
}

// scratchDirs is the session core's DirTracker: the process's list of
// directories to remove (demo_scratch.go).
type scratchDirs struct{}

func (scratchDirs) Track(dir string)  { registerScratch(dir) }
func (scratchDirs) Remove(dir string) { removeScratch(dir) }

// providerClient is the model client of a resolved (non-demo) provider.
func providerClient(prov config.Resolved) (model.Client, error) {
	client, err := model.New(model.ProviderConfig{
		Name: prov.Name, BaseURL: prov.BaseURL, APIKey: prov.APIKey, WireAPI: prov.WireAPI,
		Headers: prov.Headers, MaxRetries: prov.MaxRetries, StreamMaxRetries: prov.StreamMaxRetries,
		StreamIdleTimeout: prov.StreamIdleTimeout, ResponseHeaderTimeout: prov.ResponseHeaderTimeout,
		QueryParams: prov.QueryParams, OmitParams: prov.OmitParams, MaxMessageBytes: prov.MaxMessageBytes,
		StoreResponses: prov.StoreResponses,
	})
	if err != nil {
		return nil, fmt.Errorf("model provider %s: %w", prov.Name, err)
	}
	return client, nil
}
