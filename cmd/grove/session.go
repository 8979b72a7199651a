package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/sessions"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// session is a configured engine plus what the front ends display.
type session struct {
	cfg      *config.Config
	provider config.Resolved
	eng      *engine.Engine
	cwd      string
	// warnings are the problems found while opening the session (config,
	// templates) and the engine's warnings since (a resumed session's torn
	// lines or interrupted turn). They are logged; the TUI shows them on its
	// status line (headless commands print them to stderr).
	warnMu   sync.Mutex
	warnings []string
	// stopLog and waitLog end the debug log's event reader.
	stopLog, waitLog func()
	// mcp runs the session's MCP servers; shutdown stops them.
	mcp *mcp.Manager
	// scratch is the demo's scratch project, removed at shutdown ("" when
	// there is none or --keep-demo-dir asked to keep it).
	scratch string
}

// maxSessionWarnings bounds the kept warnings (a broken disk repeats).
const maxSessionWarnings = 100

// Warnings returns the problems found while opening the session and the
// engine's warnings since, oldest first. The engine publishes some before
// any UI subscribes (while a session resumes): this is where those stay.
func (s *session) Warnings() []string {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	return append([]string(nil), s.warnings...)
}

func (s *session) addWarning(w string) {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	if len(s.warnings) < maxSessionWarnings {
		s.warnings = append(s.warnings, w)
	}
}

type sessionOpts struct {
	headless        bool
	approveWorkdirs bool
	// demoDelay paces the demo model's streaming (TUI only).
	demoDelay time.Duration
	// mcpServers are a client's own MCP servers for this session (ACP),
	// started next to config.toml's; a client's server replaces a
	// configured one of the same name.
	mcpServers map[string]config.MCPServer
}

// loadConfig reads config.toml with the command-line overrides applied.
func loadConfig(g *globalFlags) (*config.Config, error) {
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	overrides := append([]string(nil), g.overrides...)
	if g.model != "" {
		overrides = append(overrides, "model="+quote(g.model))
	}
	if g.sandbox != "" {
		overrides = append(overrides, "sandbox_mode="+quote(g.sandbox))
	}
	if g.approval != "" {
		overrides = append(overrides, "approval_policy="+quote(g.approval))
	}
	if g.demo {
		overrides = append(overrides, `model_provider="demo"`)
	}
	cfg, err := config.Load(home, overrides)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		g.warn(w)
	}
	return cfg, nil
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

// newSession builds the engine for one session (not yet started).
func newSession(ctx context.Context, g *globalFlags, o sessionOpts) (*session, error) {
	cfg, err := loadConfig(g)
	if err != nil {
		return nil, err
	}
	prov, err := cfg.ResolveProvider(nil)
	if err != nil {
		return nil, err
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
	se := cfg.ShellEnvironment
	tools.SetShellEnvPolicy(tools.ShellEnvPolicy{Secrets: cfg.ProviderEnvKeys(), Exclude: se.Exclude, IncludeOnly: se.IncludeOnly, Set: se.Set, IgnoreDefaultExcludes: se.IgnoreDefaultExcludes})
	cwd, err := workingDir(g)
	if err != nil {
		return nil, err
	}
	var client model.Client
	scratch := ""
	if prov.Demo {
		// The demo works in a scratch project unless --cd says otherwise.
		if g.cd == "" {
			if cwd, err = demo.NewScratch(); err != nil {
				return nil, err
			}
			if !g.keepDemoDir {
				scratch = cwd
				registerScratch(cwd)
			}
		}
		client = demo.NewClient(o.demoDelay)
	} else {
		client, err = model.New(model.ProviderConfig{
			Name: prov.Name, BaseURL: prov.BaseURL, APIKey: prov.APIKey, WireAPI: prov.WireAPI,
			Headers: prov.Headers, MaxRetries: prov.MaxRetries,
			StreamIdleTimeout: prov.StreamIdleTimeout, ResponseHeaderTimeout: prov.ResponseHeaderTimeout,
			QueryParams: prov.QueryParams, OmitParams: prov.OmitParams, MaxMessageBytes: prov.MaxMessageBytes,
		})
		if err != nil {
			return nil, fmt.Errorf("model provider %s: %w", prov.Name, err)
		}
	}
	if err := os.MkdirAll(cfg.Home, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", cfg.Home, err)
	}
	warnings := append([]string(nil), cfg.Warnings...)
	catalog := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: cfg.Home, UserHome: userHome()}, templates.Options{ModelAliases: cfg.Agents.ModelAliases})
	modelName := prov.Model
	reg, mcpMgr, err := newToolRegistry(cfg, cwd)
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(ctx, engine.Options{
		Home: cfg.Home, Client: client, Provider: prov.Name,
		Model: modelName, ReasoningEffort: cfg.ReasoningEffort,
		Cwd: cwd, Sandbox: cfg.SandboxPolicy(), ApprovalPolicy: cfg.ApprovalPolicy,
		MaxThreads: cfg.Agents.MaxThreads, MaxDepth: cfg.Agents.MaxDepth,
		Instructions: cfg.Instructions, Templates: catalog,
		Headless: o.headless, ApproveWorkdirs: o.approveWorkdirs || cfg.Exec.ApproveWorkdirs,
		Demo: prov.Demo, Tools: reg,
		Surfaces: []engine.SurfaceFactory{surface.CollabFactory, task.Factory(task.Options{
			ModelAliases: cfg.Agents.ModelAliases, TrustCustomAgents: cfg.Agents.TrustCustomAgents,
		}), inbox.New, sessions.Factory(sessions.Options{Profiles: sessionProfiles(cfg.Agents.Profiles)})},
		SelectSurface: surface.Selector(cfg.Agents.Surface),
		ModelAliases:  cfg.Agents.ModelAliases,
	})
	if err != nil {
		_ = mcpMgr.Close()
		removeScratch(scratch)
		return nil, err
	}
	closeMCPWithEngine(eng, mcpMgr) // also when a front end shuts the engine down directly
	s := &session{cfg: cfg, provider: prov, eng: eng, cwd: cwd, warnings: warnings, mcp: mcpMgr, scratch: scratch}
	s.stopLog, s.waitLog = logEvents(eng, s.addWarning)
	return s, nil
}

// shutdown closes the engine (every thread interrupted, rollouts flushed
// and closed) and logs each step with its duration.
func (s *session) shutdown(ctx context.Context, reason string) error {
	l := logging.L()
	begin := time.Now()
	l.Info("shutdown: begin", "reason", reason)
	err := s.eng.Shutdown(ctx)
	l.Info("shutdown: engine closed", "duration_ms", time.Since(begin).Milliseconds(), "err", err)
	if s.mcp != nil {
		step := time.Now()
		_ = s.mcp.Close() // MCP servers stop with the session
		l.Info("shutdown: MCP servers stopped", "duration_ms", time.Since(step).Milliseconds())
	}
	s.removeScratch()
	step := time.Now()
	s.stopLog()
	s.waitLog()
	l.Info("shutdown: done", "log_drain_ms", time.Since(step).Milliseconds(), "duration_ms", time.Since(begin).Milliseconds())
	return err
}

// removeScratch deletes the demo's scratch project once the engine no
// longer runs in it.
func (s *session) removeScratch() {
	if s.scratch != "" {
		removeScratch(s.scratch)
	}
}

func userHome() string {
	h, _ := os.UserHomeDir()
	return h
}

// start opens the root thread: a new one, or a resumed session.
func (s *session) start(resumeID string) (protocol.ThreadID, error) {
	if resumeID != "" {
		return s.eng.ResumeSession(resumeID)
	}
	return s.eng.StartRoot()
}
