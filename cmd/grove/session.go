package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/sessions"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
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
	// lines or interrupted turn). They are logged; the TUI shows the
	// opening ones (the first opening) as notices at start, the engine's in
	// the transcript (headless commands print them to stderr).
	warnMu   sync.Mutex
	warnings []string
	opening  int
	// readOnly says why the session is open read-only (another grove
	// writes it); "" when it is writable.
	readOnly string
	// stopLog and waitLog end the debug log's event reader.
	stopLog, waitLog func()
	// finishNotify lets the `notify` program of the last turn run.
	finishNotify func(context.Context)
	// ephemeralHome holds an --ephemeral session's files; removed at
	// shutdown.
	ephemeralHome string
	// mcp runs the session's MCP servers; shutdown stops them.
	mcp *mcp.Manager
	// scratch is the demo's scratch project, removed at shutdown ("" when
	// there is none or --keep-demo-dir asked to keep it).
	scratch string
	// hookSet is every hook found and its trust; hooks runs the active
	// ones (nil: none) and stops with the session.
	hookSet hooks.Set
	hooks   *hooks.Runner
	// hosts are the machines tools run on (--host, templates' host:),
	// closed at shutdown.
	hosts *hostSet
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

// OpeningWarnings are the problems found while opening the session (a
// broken SKILL.md, a config key grove ignores).
func (s *session) OpeningWarnings() []string {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	return append([]string(nil), s.warnings[:s.opening]...)
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
	// resume is the session about to be resumed: without --host it runs
	// on the host it was recorded with.
	resume string
	// originator is sent as the `originator` header of every model
	// request, as Codex does (codex_exec; an app-server client's name).
	originator string
	// turnMetadata goes with every model request of a turn as Codex's
	// x-codex-turn-metadata header (--responsesapi-client-metadata).
	turnMetadata map[string]string
}

// loadConfig reads grove's config.toml (else Codex's) with the profile
// and the command-line overrides applied.
func loadConfig(g *globalFlags) (*config.Config, error) {
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	cfg, err := config.LoadWith(config.LoadOptions{
		Home: home, CodexHome: config.CodexHome(), Profile: g.profile,
		Overrides: g.overrides, Flags: flagSettings(g), NoFiles: g.ignoreUserConfig,
	})
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
	if prov.Demo && o.refuseDemo && cfg.ModelProvider == "" {
		return nil, noProviderError(cfg)
	}
	if prov.Demo && len(o.outputSchema) > 0 {
		return nil, errors.New("--output-schema: the offline demo model cannot follow a schema (configure a provider with the Responses or Chat Completions API)")
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
		if o.originator != "" {
			headers := make(map[string]string, len(prov.Headers)+1)
			for k, v := range prov.Headers {
				headers[k] = v
			}
			headers["originator"] = o.originator
			prov.Headers = headers
		}
		if client, err = providerClient(prov); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(cfg.Home, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", cfg.Home, err)
	}
	sessionsHome := cfg.Home
	if o.ephemeral {
		if sessionsHome, err = os.MkdirTemp("", "grove-ephemeral-"); err != nil {
			return nil, fmt.Errorf("--ephemeral: %w", err)
		}
		registerScratch(sessionsHome)
	}
	warnings := append([]string(nil), cfg.Warnings...)
	// The login snapshot is taken now, before a command of this session
	// runs, and not at all when a profile lies in a writable root.
	if w := tools.PrepareLoginEnvironment(loginRoots(cfg.SandboxPolicy(), cwd)); w != "" {
		warnings = append(warnings, w)
	}
	catalog := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: cfg.Home, UserHome: userHome(), AgentsDir: cfg.SubagentAgentsDir()}, templates.Options{ModelAliases: cfg.Agents.ModelAliases})
	modelName := prov.Model
	hookSet, err := discoverHooks(cfg, cwd)
	if err != nil {
		return nil, err
	}
	hookRunner := newHookRunner(hookSet, o.bypassHookTrust, cfg.SandboxPolicy())
	skillCat := discoverSkills(cwd)
	for _, w := range skillCat.Warnings {
		warnings = append(warnings, "skills: "+w)
	}
	var host *execenv.Remote
	var hostCfg config.Host
	hosts := newHostSet(cfg)
	hostName, err := sessionHost(cfg, g.host, o.resume)
	if err != nil {
		hookRunner.Close()
		return nil, err
	}
	if hostName != "" {
		// Checked before the first model call: a host that cannot be
		// reached fails here, named, with what ssh said.
		if host, hostCfg, err = connectHost(ctx, cfg, hostName); err != nil {
			hookRunner.Close()
			return nil, err
		}
		hosts.add(hostName, host)
	}
	sampler := &mcp.Sampler{Client: client, Model: modelName}
	if prov.Demo {
		sampler = nil // the demo's scripted answers are not a model to lend
	}
	toolCfg, err := toolConfig(cfg)
	if err != nil {
		hookRunner.Close()
		hosts.close()
		return nil, err
	}
	reg, mcpMgr, err := newToolRegistry(cfg, cwd, sampler)
	if err != nil {
		hookRunner.Close()
		hosts.close()
		return nil, err
	}
	eng, err := engine.New(ctx, engine.Options{
		Home: sessionsHome, Client: client, Provider: prov.Name,
		Model: modelName, ReasoningEffort: cfg.ReasoningEffort,
		Cwd: cwd, Sandbox: cfg.SandboxPolicy(), ApprovalPolicy: cfg.ApprovalPolicy,
		MaxThreads: cfg.Agents.MaxThreads, MaxDepth: cfg.Agents.MaxDepth,
		Instructions: cfg.Instructions, UserAgentsMD: cfg.UserAgentsMD, Templates: catalog,
		BaseInstructions: cfg.ModelInstructions, DeveloperInstructions: cfg.DeveloperInstructions,
		OutputSchema: o.outputSchema,
		Headless:     o.headless, ApproveWorkdirs: o.approveWorkdirs || cfg.Exec.ApproveWorkdirs,
		Demo: prov.Demo, Tools: reg,
		Surfaces:      surfaceFactories(cfg),
		SelectSurface: surface.Selector(cfg.Agents.Surface),
		ModelAliases:  cfg.Agents.ModelAliases,
		Hooks:         hookRunner,
		Skills:        skillCat, SkillsBudget: skillsBudget(cfg),
		Exec: backendOf(host), Workspace: hostCfg.Workspace, HostName: hostName,
		OpenHost:      hosts.open,
		ContextWindow: cfg.ModelContextWindow, AutoCompactTokenLimit: cfg.ModelAutoCompactTokenLimit,
		PrewarmTools: true, TurnMetadata: o.turnMetadata,
		ToolConfig: toolCfg,
	})
	if err != nil {
		hookRunner.Close()
		_ = mcpMgr.Close()
		hosts.close()
		removeScratch(scratch)
		return nil, err
	}
	closeMCPWithEngine(eng, mcpMgr) // also when a front end shuts the engine down directly
	closeHooksWithEngine(eng, hookRunner)
	s := &session{cfg: cfg, provider: prov, eng: eng, cwd: cwd, warnings: warnings, opening: len(warnings), mcp: mcpMgr, scratch: scratch, hosts: hosts, hookSet: hookSet, hooks: hookRunner}
	for _, w := range hookSet.Warnings {
		s.addWarning("hooks: " + w)
	}
	for _, h := range hookSet.Skipped(o.bypassHookTrust) {
		s.addWarning(fmt.Sprintf("hook skipped: %s %q in %s: %s", h.Event, h.Command, h.File, h.Trust.Reason()))
	}
	if o.ephemeral {
		s.ephemeralHome = sessionsHome
	}
	s.stopLog, s.waitLog = logEvents(eng, s.addWarning)
	s.finishNotify = startNotify(eng, cfg.Notify, cwd)
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
	s.hooks.Close() // async hooks still running stop with the session
	s.finishNotify(ctx)
	s.removeScratch()
	s.hosts.close()
	if s.ephemeralHome != "" {
		removeScratch(s.ephemeralHome)
	}
	step := time.Now()
	s.stopLog()
	s.waitLog()
	l.Info("shutdown: done", "log_drain_ms", time.Since(step).Milliseconds(), "duration_ms", time.Since(begin).Milliseconds())
	return err
}

// backendOf is the engine's Exec for a host (nil: this machine).
func backendOf(h *execenv.Remote) execenv.Backend {
	if h == nil {
		return nil
	}
	return h
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

// viewIfLocked answers a resume refused because another grove is writing
// the session (err) by opening it read-only instead, with a warning that
// says so and how to continue a copy; any other error is returned as is.
func (s *session) viewIfLocked(resumeID string, err error) error {
	var locked *rollout.LockedError
	if resumeID == "" || !errors.As(err, &locked) {
		return err
	}
	if _, verr := s.eng.ViewSession(resumeID); verr != nil {
		return err
	}
	s.readOnly = fmt.Sprintf("read-only view: %v. Input is refused while that grove runs; `grove resume --fork %s` continues a copy", locked, resumeID)
	s.addWarning(s.readOnly)
	return nil
}

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

// startOrFork resumes resumeID, or with fork continues a copy of it in a
// new session (the way past a session another grove is writing).
func (s *session) startOrFork(resumeID string, fork bool) (protocol.ThreadID, error) {
	if fork {
		if resumeID == "" {
			return "", fmt.Errorf("--fork needs a session to fork (an id, or --last)")
		}
		return s.eng.ForkSession(resumeID)
	}
	return s.start(resumeID)
}

// taskOptions are the Task surface's settings: [agents] and seed 004's
// [subagent] table.
func taskOptions(cfg *config.Config) task.Options {
	timeout, turns := cfg.SubagentDefaults()
	return task.Options{
		ModelAliases: cfg.Agents.ModelAliases, TrustCustomAgents: cfg.Agents.TrustCustomAgents,
		Disabled: !cfg.SubagentsEnabled(),
		Defaults: task.Defaults{MaxTurns: turns, MaxTime: time.Duration(timeout) * time.Second},
	}
}

// loginRoots are the directories a sandboxed command can write in this
// project — the workspace-write roots whatever this session's mode: a
// profile a sandboxed command of an earlier session wrote must not run
// now (the temp dir and /dev/shm are roots of every sandbox).
func loginRoots(policy protocol.SandboxPolicy, cwd string) []string {
	policy.Mode = protocol.SandboxWorkspaceWrite
	return append(sandbox.WritableRoots(policy, cwd), "/dev/shm")
}

// surfaceFactories are the delegation tool surfaces a session offers.
func surfaceFactories(cfg *config.Config) []engine.SurfaceFactory {
	return []engine.SurfaceFactory{surface.CollabFactory, task.Factory(taskOptions(cfg)), inbox.New, sessions.Factory(sessions.Options{Profiles: sessionProfiles(cfg.Agents.Profiles)})}
}
