package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/templates"
)

// Options are what a front end resolved before opening a session: the
// configuration (profile, overrides and flags applied), the provider and
// its client, the directory. Building a client depends on command-line
// things (the originator header, the demo's pace), so it is the caller's.
type Options struct {
	Config   *config.Config
	Provider config.Resolved
	Client   model.Client
	Cwd      string
	// Scratch is a directory the session owns (the demo's scratch
	// project), removed by Close; "" when there is none.
	Scratch string
	// Ephemeral keeps the session's files in a temporary directory that
	// Close removes.
	Ephemeral bool
	// Host is the host tools run on (--host); "" means the one a resumed
	// session recorded, else this machine.
	Host string
	// Headless: nobody answers approvals (exec); the policy decides.
	Headless        bool
	ApproveWorkdirs bool
	// OutputSchema constrains the root's replies (exec --output-schema).
	OutputSchema json.RawMessage
	// BypassHookTrust runs unreviewed hooks.
	BypassHookTrust bool
	// TurnMetadata goes with every model request (Codex's
	// x-codex-turn-metadata header).
	TurnMetadata map[string]string
	// Dirs is told of the directories the session makes and removes.
	Dirs DirTracker
	// OnMCP is told of the session's MCP manager (the process's list).
	OnMCP func(*mcp.Manager)
	// Start says which root the session opens.
	Start Start
}

// Start says which root a session opens and how a front end follows it.
type Start struct {
	// Resume is a stored session to continue; "" starts a new root.
	Resume string
	// Fork continues a copy of Resume as a new session.
	Fork bool
	// Rewind, with Fork, cuts the copy before Resume's Rewind-th last
	// user message (the TUI's Esc-Esc); Rewound returns that message.
	Rewind int
	// ViewIfLocked opens Resume read-only when another grove writes it
	// (the TUI), with a warning saying so and how to continue a copy.
	ViewIfLocked bool
	// Subscribe takes the Events subscription before the root starts, so
	// the front end sees its first events.
	Subscribe bool
}

// Open builds a session and starts its root as o.Start says (a new one
// by default). On an error it releases whatever it had built, through
// Close, and returns the error.
func Open(ctx context.Context, o Options) (*Session, error) {
	s := &Session{cfg: o.Config, prov: o.Provider, client: o.Client, cwd: o.Cwd, scratch: o.Scratch, dirs: o.Dirs}
	if err := s.build(ctx, o); err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	if err := s.start(o.Start); err != nil {
		s.dropEvents() // nobody reads them: the front end never got s
		_ = s.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// Resume opens the stored session id and continues it.
func Resume(ctx context.Context, o Options, id string) (*Session, error) {
	o.Start.Resume, o.Start.Fork = id, false
	return Open(ctx, o)
}

// Fork opens a copy of the stored session id as a new session.
func Fork(ctx context.Context, o Options, id string) (*Session, error) {
	o.Start.Resume, o.Start.Fork = id, true
	return Open(ctx, o)
}

// Adopt makes a session of an engine built elsewhere (the protocol
// servers' tests build scripted engines) and starts its root as st says.
// Close shuts the engine down; nothing else is owned.
func Adopt(eng *engine.Engine, st Start) (*Session, error) {
	o := eng.Options()
	s := &Session{eng: eng, cwd: o.Cwd, prov: config.Resolved{Name: o.Provider, Model: o.Model, Demo: o.Demo}}
	if err := s.start(st); err != nil {
		s.dropEvents()
		_ = s.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// build makes the session's parts in the order Close undoes them: the
// session's files, hooks, skills, the host, the tool registry with its
// MCP servers, the engine, then the engine's readers (log, notify). Each
// part is stored on s as soon as it exists, so Close finds it.
func (s *Session) build(ctx context.Context, o Options) error {
	cfg, cwd := o.Config, o.Cwd
	home, err := s.sessionsHome(o)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		s.addWarning(w)
	}
	// The login snapshot is taken now, before a command of this session
	// runs, and not at all when a profile lies in a writable root or
	// login shells are off (allow_login_shell = false: no profile runs).
	if cfg.AllowLoginShell() {
		if w := tools.PrepareLoginEnvironment(loginRoots(cfg.SandboxPolicy(), cwd)); w != "" {
			s.addWarning(w)
		}
	}
	catalog := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: cfg.Home, UserHome: UserHome(), AgentsDir: cfg.SubagentAgentsDir()}, templates.Options{ModelAliases: cfg.Agents.ModelAliases})
	if s.hookSet, err = DiscoverHooks(cfg, cwd); err != nil {
		return err
	}
	s.hooks = newHookRunner(s.hookSet, o.BypassHookTrust, cfg.SandboxPolicy())
	skillCat := DiscoverSkills(cwd)
	for _, w := range skillCat.Warnings {
		s.addWarning("skills: " + w)
	}
	s.hosts = newHostSet(cfg)
	hostName := sessionHost(cfg, o.Host, o.Start.Resume)
	var host execenv.Backend
	var hostCfg config.Host
	if hostName != "" {
		// Checked before the first model call: a host that cannot be
		// reached fails here, named, with what ssh said.
		r, hc, err := connectHost(ctx, cfg, hostName)
		if err != nil {
			return err
		}
		s.hosts.add(hostName, r)
		host, hostCfg = r, hc
	}
	toolCfg, err := ToolConfig(cfg)
	if err != nil {
		return err
	}
	var sampler *mcp.Sampler
	if !o.Provider.Demo { // the demo's scripted answers are not a model to lend
		sampler = &mcp.Sampler{Client: o.Client, Model: o.Provider.Model}
	}
	reg, mgr, err := newToolRegistry(cfg, cwd, sampler)
	if err != nil {
		return err
	}
	s.mcp = mgr
	if o.OnMCP != nil {
		o.OnMCP(mgr)
	}
	s.eng, err = engine.New(ctx, engine.Options{
		Home: home, Client: o.Client, Provider: o.Provider.Name,
		Model: o.Provider.Model, ReasoningEffort: cfg.ReasoningEffort,
		Cwd: cwd, Sandbox: cfg.SandboxPolicy(), ApprovalPolicy: cfg.ApprovalPolicy,
		MaxThreads: cfg.Agents.MaxThreads, MaxDepth: cfg.Agents.MaxDepth,
		Instructions: cfg.Instructions, UserAgentsMD: cfg.UserAgentsMD, Templates: catalog,
		BaseInstructions: cfg.ModelInstructions, DeveloperInstructions: cfg.DeveloperInstructions,
		OutputSchema: o.OutputSchema,
		Headless:     o.Headless, ApproveWorkdirs: o.ApproveWorkdirs || cfg.Exec.ApproveWorkdirs,
		Demo: o.Provider.Demo, Tools: reg,
		Surfaces:      SurfaceFactories(cfg),
		SelectSurface: surface.Selector(cfg.Agents.Surface),
		ModelAliases:  cfg.Agents.ModelAliases,
		Hooks:         s.hooks,
		Skills:        skillCat, SkillsBudget: skillsBudget(cfg),
		Exec: host, Workspace: hostCfg.Workspace, HostName: hostName,
		OpenHost:      s.hosts.open,
		ContextWindow: cfg.ModelContextWindow, AutoCompactTokenLimit: cfg.ModelAutoCompactTokenLimit,
		PrewarmTools: true, TurnMetadata: o.TurnMetadata,
		ToolConfig: toolCfg, NoInterruptMessage: !cfg.Agents.InterruptMessageOn(),
	})
	if err != nil {
		s.eng = nil
		return err
	}
	s.warnMu.Lock()
	s.opening = len(s.warnings)
	s.warnMu.Unlock()
	s.hookWarnings(o.BypassHookTrust)
	s.stopLog, s.waitLog = logEvents(s.eng, s.addWarning)
	s.finishNotify = startNotify(s.eng, cfg.Notify, cwd)
	return nil
}

// sessionsHome is where the session's files go: grove's home, or with
// Ephemeral a temporary directory the session owns.
func (s *Session) sessionsHome(o Options) (string, error) {
	if err := os.MkdirAll(o.Config.Home, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", o.Config.Home, err)
	}
	if !o.Ephemeral {
		return o.Config.Home, nil
	}
	dir, err := os.MkdirTemp("", "grove-ephemeral-")
	if err != nil {
		return "", fmt.Errorf("--ephemeral: %w", err)
	}
	s.ephemeralHome = dir
	if o.Dirs != nil {
		o.Dirs.Track(dir)
	}
	return dir, nil
}

// hookWarnings records what hook discovery found wrong and the hooks it
// skipped (untrusted), for the front end to show.
func (s *Session) hookWarnings(bypass bool) {
	for _, w := range s.hookSet.Warnings {
		s.addWarning("hooks: " + w)
	}
	for _, h := range s.hookSet.Skipped(bypass) {
		s.addWarning(fmt.Sprintf("hook skipped: %s %q in %s: %s", h.Event, h.Command, h.File, h.Trust.Reason()))
	}
}

// start opens the root thread: a new one, a resumed one (read-only when
// st.ViewIfLocked and another grove writes it) or a fork.
func (s *Session) start(st Start) error {
	if st.Subscribe {
		s.subscribe()
	}
	var err error
	switch {
	case st.Fork && st.Resume == "":
		return errors.New("--fork needs a session to fork (an id, or --last)")
	case st.Fork && st.Rewind > 0:
		s.root, s.rewound, err = s.eng.RewindSession(st.Resume, st.Rewind)
	case st.Fork:
		s.root, err = s.eng.ForkSession(st.Resume)
	case st.Resume != "":
		s.root, err = s.eng.ResumeSession(st.Resume)
		if err != nil && st.ViewIfLocked {
			err = s.viewIfLocked(st.Resume, err)
		}
	default:
		s.root, err = s.eng.StartRoot()
	}
	return err
}

// viewIfLocked answers a resume refused because another grove is writing
// the session (err) by opening it read-only instead, with a warning that
// says so and how to continue a copy; any other error is returned as is.
func (s *Session) viewIfLocked(resumeID string, err error) error {
	var locked *rollout.LockedError
	if !errors.As(err, &locked) {
		return err
	}
	root, verr := s.eng.ViewSession(resumeID)
	if verr != nil {
		return err
	}
	s.root = root
	s.readOnly = fmt.Sprintf("read-only view: %v. Input is refused while that grove runs; `grove resume --fork %s` continues a copy", locked, resumeID)
	s.addWarning(s.readOnly)
	return nil
}
