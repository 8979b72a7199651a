package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
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
}

type sessionOpts struct {
	headless        bool
	approveWorkdirs bool
	// demoDelay paces the demo model's streaming (TUI only).
	demoDelay time.Duration
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
		fmt.Fprintln(os.Stderr, "grove: warning:", w)
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
	se := cfg.ShellEnvironment
	tools.SetShellEnvPolicy(tools.ShellEnvPolicy{Secrets: cfg.ProviderEnvKeys(), Exclude: se.Exclude, IncludeOnly: se.IncludeOnly, Set: se.Set, IgnoreDefaultExcludes: se.IgnoreDefaultExcludes})
	cwd, err := workingDir(g)
	if err != nil {
		return nil, err
	}
	var client model.Client
	if prov.Demo {
		// The demo works in a scratch project unless --cd says otherwise.
		if g.cd == "" {
			if cwd, err = demo.NewScratch(); err != nil {
				return nil, err
			}
		}
		client = demo.NewClient(o.demoDelay)
	} else {
		client, err = model.New(model.ProviderConfig{
			Name: prov.Name, BaseURL: prov.BaseURL, APIKey: prov.APIKey, WireAPI: prov.WireAPI,
			Headers: prov.Headers, MaxRetries: prov.MaxRetries,
		})
		if err != nil {
			return nil, fmt.Errorf("model provider %s: %w", prov.Name, err)
		}
	}
	if err := os.MkdirAll(cfg.Home, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", cfg.Home, err)
	}
	if err := templates.SeedUserDir(cfg.Home); err != nil {
		fmt.Fprintln(os.Stderr, "grove: warning: seed agent templates:", err)
	}
	catalog := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: cfg.Home, UserHome: userHome()}, templates.Options{ModelAliases: cfg.Agents.ModelAliases})
	modelName := prov.Model
	eng, err := engine.New(ctx, engine.Options{
		Home: cfg.Home, Client: client, Provider: prov.Name,
		Model: modelName, ReasoningEffort: cfg.ReasoningEffort,
		Cwd: cwd, Sandbox: cfg.SandboxPolicy(), ApprovalPolicy: cfg.ApprovalPolicy,
		MaxThreads: cfg.Agents.MaxThreads, MaxDepth: cfg.Agents.MaxDepth,
		Instructions: cfg.Instructions, Templates: catalog,
		Headless: o.headless, ApproveWorkdirs: o.approveWorkdirs || cfg.Exec.ApproveWorkdirs,
		Demo: prov.Demo,
	})
	if err != nil {
		return nil, err
	}
	return &session{cfg: cfg, provider: prov, eng: eng, cwd: cwd}, nil
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
