// Package task is seed 004's delegation surface, the way Claude models
// delegate: Task starts a sub-agent of a named type (built-in Explore and
// Plan, role templates, Claude Code agent files, seed-004 YAML
// definitions) and returns its result, or launches it in the background
// for TaskOutput; sub-agents end with complete_task, typed by the
// definition's outputConfig, within maxTurns/maxTimeSeconds plus a grace
// step. Everything runs on the engine's primitives, so the tree, the
// rollouts, approvals and resume work as for any agent.
package task

import (
	"os"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/templates"
)

// Name is the surface's name in agents.surface.
const Name = "task"

// Tool names of the surface.
const (
	ToolTask       = "Task"
	ToolTaskOutput = "TaskOutput"
)

// Options configures the surface.
type Options struct {
	// Catalog holds the role templates and definitions (nil: the engine's).
	Catalog *templates.Catalog
	// ModelAliases maps sonnet/opus/haiku to model ids (agents.model_aliases).
	ModelAliases map[string]string
	// TrustCustomAgents lifts the non-built-in tier (agents.trust_custom_agents).
	TrustCustomAgents bool
	// Getenv reads the subagent model variables (nil: os.Getenv).
	Getenv func(string) string
	// Disabled is seed 004's SubagentConfig enabled = false: the surface
	// offers no tools and no instructions.
	Disabled bool
	// Defaults are SubagentConfig's default_max_turns and
	// default_timeout_seconds (zero: the seed's 50 and 300 s).
	Defaults Defaults
}

// Surface is the Task surface of one engine.
type Surface struct {
	e       engine.Ops
	opts    Options
	agents  *Registry
	results *results
	tools   []tools.Tool
}

// Factory returns the engine.SurfaceFactory of the Task surface.
func Factory(opts Options) engine.SurfaceFactory {
	return func(e engine.Ops) (engine.Surface, error) { return New(e, opts) }
}

// New builds the surface over e.
func New(e engine.Ops, opts Options) (*Surface, error) {
	if opts.Catalog == nil {
		opts.Catalog = e.Templates()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	s := &Surface{e: e, opts: opts, agents: NewRegistry(opts.Catalog, opts.Defaults), results: newResults()}
	if !opts.Disabled {
		s.tools = []tools.Tool{newTaskTool(s), &taskOutputTool{s: s}}
	}
	return s, nil
}

// Name implements engine.Surface.
func (s *Surface) Name() string { return Name }

// Tools implements engine.Surface.
func (s *Surface) Tools() []tools.Tool { return s.tools }

// Agents is the registry of agent types.
func (s *Surface) Agents() *Registry { return s.agents }

// Instructions is the prompt section on delegating with Task.
func (s *Surface) Instructions() string {
	if s.opts.Disabled {
		return ""
	}
	return `# Working with sub-agents
- When part of the task is self-contained (a search across the codebase, a plan, a review), hand it to a sub-agent with Task: pick a subagent_type from the Task tool's list (Explore to investigate read-only, Plan to design a change), and give it a prompt with the goal, the files involved, the constraints and what to report back.
- Task waits for the agent and returns its result. For independent parts, start several with run_in_background and collect each with TaskOutput. Continue an agent that already knows the context by passing its agent_id as resume.
- Check what sub-agents report before you rely on it.`
}
