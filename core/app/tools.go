package app

import (
	"fmt"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/sessions"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// DiscoverSkills finds the skills for a session in cwd.
func DiscoverSkills(cwd string) skills.Catalog {
	return skills.Discover(skills.Locations{Cwd: cwd, UserHome: UserHome(), CodexHome: CodexHome(), SystemDir: SystemConfigDir()})
}

// skillsBudget is the skills list's budget: 2% of model_context_window.
func skillsBudget(cfg *config.Config) int {
	if cfg.ModelContextWindow > 0 {
		return skills.BudgetChars(int(cfg.ModelContextWindow))
	}
	return 0 // the engine's default
}

// newToolRegistry is the core tools plus the configured MCP servers (which
// start lazily, when an agent first needs tools). sampler is nil when
// there is no model to lend.
func newToolRegistry(cfg *config.Config, cwd string, sampler *mcp.Sampler) (*tools.Registry, *mcp.Manager, error) {
	reg := tools.NewRegistry()
	// Every family's tools; each agent is offered its model family's
	// (tools.ToolSetFor: Claude Code's for Claude models).
	if err := tools.RegisterAll(reg); err != nil {
		return nil, nil, fmt.Errorf("register tools: %w", err)
	}
	// Servers that ask get the session's workspace roots and, with the
	// user's approval per request, its model (sampling).
	roots := append([]string{cwd}, cfg.WorkspaceWrite.WritableRoots...)
	m := mcp.New(mcp.Options{Servers: cfg.MCPServers, Cwd: cwd, Home: cfg.Home, Roots: roots, Sampler: sampler})
	reg.AddSource(m)
	return reg, m, nil
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
// now (the temp dir is a root of every sandbox; /dev/shm, which every
// program of the user can write, and a root before the sandbox had its own
// /dev/shm, counts too).
func loginRoots(policy protocol.SandboxPolicy, cwd string) []string {
	policy.Mode = protocol.SandboxWorkspaceWrite
	// Another session may not have excluded the temp dirs.
	policy.ExcludeSlashTmp, policy.ExcludeTmpdirEnvVar = false, false
	return append(sandbox.WritableRoots(policy, cwd), "/dev/shm")
}

// SurfaceFactories are the delegation tool surfaces a session offers.
func SurfaceFactories(cfg *config.Config) []engine.SurfaceFactory {
	return []engine.SurfaceFactory{surface.CollabFactory, task.Factory(taskOptions(cfg)), inbox.New, sessions.Factory(sessions.Options{Profiles: sessionProfiles(cfg.Agents.Profiles)})}
}
