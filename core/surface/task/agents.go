package task

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/templates"
)

// Seed 004's run defaults (§3.1.2, §3.6).
const (
	DefaultMaxTurns = 50
	DefaultMaxTime  = 300 * time.Second
	DefaultGrace    = 60 * time.Second
)

// Agent is one subagent_type as the Task tool runs it: a built-in, a role
// template, a Claude Code agent file or a seed-004 definition.
type Agent struct {
	Type      string // as the model names it (Explore, code-reviewer)
	WhenToUse string
	Builtin   bool
	Source    string // file path, or "builtin"
	// Prompt and Query are templates with ${name} placeholders.
	Prompt string
	Query  string
	// InitialMessages open the agent's conversation, before the first
	// message (few-shot examples, seed 004 §3.1.2 PromptConfig).
	InitialMessages []templates.InitialMessage
	// Allow (nil = every tool) and Deny hold grove tool names or globs.
	Allow, Deny []string
	Model       string // resolved id, or "" to inherit
	ReadOnly    bool
	ForkContext bool
	MaxTurns    int
	MaxTime     time.Duration
	Grace       time.Duration
	Inputs      map[string]templates.InputDefinition
	Output      *templates.OutputConfig
	// ApprovalMode is the definition's approvalMode (seed 004 §3.9):
	// route_to_parent (default), suppress, auto_approve_in_sandbox.
	ApprovalMode string
	// ExecutionMode is seed 004 §3.1.1's lightweight or full_codex for the
	// built-ins and seed-004 definitions; "" for role templates and Claude
	// Code agent files, which ask through their parent as every agent does.
	ExecutionMode string
	// Temperature and TopP are the definition's modelConfig values when
	// it sets them (nil: the provider's default).
	Temperature, TopP *float64
	// BaseDir is the definition's baseDir: the agent's working directory
	// ("" = the caller's; relative to the caller's).
	BaseDir string
}

// neverAsks reports whether the agent runs without approval prompts:
// seed 004's lightweight executor always suppresses them (§3.4.1,
// suppress_permissions: true); a full_codex agent follows approvalMode
// (§3.9): suppress and auto_approve_in_sandbox never ask, route_to_parent
// asks through the parent. What would need approval is then decided by
// the configured policy, escalations refused, never by asking the user.
func (a *Agent) neverAsks() bool {
	if a.ExecutionMode == templates.ExecutionLightweight {
		return true
	}
	return a.ApprovalMode == "suppress" || a.ApprovalMode == "auto_approve_in_sandbox"
}

// builtins are seed 004's Explore and Plan agents (§4).
func builtins() []*Agent {
	return []*Agent{
		{
			Type:      "Explore",
			WhenToUse: "Fast exploration of codebases. Use for finding files, searching code, understanding structure.",
			Builtin:   true, Source: "builtin", ReadOnly: true,
			ExecutionMode: templates.ExecutionLightweight,
			Allow:         []string{"read_file", tools.GlobFilesName, "grep_files", "list_dir"},
			Prompt:        explorePrompt,
			MaxTurns:      30, MaxTime: 120 * time.Second, Grace: DefaultGrace,
		},
		{
			Type:      "Plan",
			WhenToUse: "Creating implementation plans, designing architecture, analyzing trade-offs.",
			Builtin:   true, Source: "builtin", ReadOnly: true, ForkContext: true,
			ExecutionMode: templates.ExecutionLightweight,
			Allow:         []string{"read_file", tools.GlobFilesName, "grep_files"},
			Prompt:        planPrompt,
			MaxTurns:      DefaultMaxTurns, MaxTime: DefaultMaxTime, Grace: DefaultGrace,
		},
	}
}

// explorePrompt and planPrompt are seed 004 §4's prompts/explore.md and
// prompts/plan.md, verbatim.
const explorePrompt = `You are a fast, focused codebase explorer.

Working directory: ${cwd}

Your task: ${prompt}

## Guidelines

1. **Be thorough but efficient** - Search multiple patterns/locations in parallel
2. **Report findings clearly** - Include file paths and relevant code snippets
3. **Stay focused** - Only explore what's relevant to the task
4. **Use tools effectively**:
   - ` + "`glob_files`" + ` for finding files by pattern
   - ` + "`grep_files`" + ` for searching content
   - ` + "`read_file`" + ` for examining specific files
   - ` + "`list_dir`" + ` for directory structure

## Output Format

Provide a clear summary with:
- Key findings
- Relevant file paths
- Code snippets if helpful
- Any patterns or observations
`

const planPrompt = `You are a software architect creating an implementation plan.

Working directory: ${cwd}

Task: ${prompt}

## Planning Process

1. **Understand the requirements** - Clarify scope and constraints
2. **Explore existing code** - Find relevant patterns and dependencies
3. **Design the approach** - Consider trade-offs and alternatives
4. **Create actionable steps** - Break down into concrete tasks

## Output Format

Provide a structured plan with:

### Overview
Brief summary of the approach

### Critical Files
List of files that will be modified or created

### Implementation Steps
1. Step 1 - Description
2. Step 2 - Description
...

### Considerations
- Trade-offs
- Risks
- Dependencies
`

// BuiltinTypes lists the built-in agent types.
func BuiltinTypes() []string {
	var out []string
	for _, a := range builtins() {
		out = append(out, a.Type)
	}
	return out
}

// Defaults are the run limits of an agent whose definition sets none:
// seed 004 §5.3's SubagentConfig default_max_turns and
// default_timeout_seconds. Zero takes the seed's 50 turns and 300 s.
type Defaults struct {
	MaxTurns int
	MaxTime  time.Duration
}

func (d Defaults) orSeed() Defaults {
	if d.MaxTurns <= 0 {
		d.MaxTurns = DefaultMaxTurns
	}
	if d.MaxTime <= 0 {
		d.MaxTime = DefaultMaxTime
	}
	return d
}

// defaultSystemPrompt is seed 004 §3.4.2's system prompt of a definition
// that gives none.
const defaultSystemPrompt = "You are a helpful assistant."

// fromTemplate turns a role template (grove, Claude Code or seed 004)
// into a Task agent; the limits it does not set come from def.
func fromTemplate(t *templates.Template, def Defaults) *Agent {
	a := &Agent{
		Type: t.AgentType, WhenToUse: t.Description, Source: t.Source,
		Prompt: t.DefaultPrompt, Allow: t.AllowList, Deny: t.DenyList,
		Model: t.Model, ReadOnly: t.ReadOnly,
		MaxTurns: def.MaxTurns, MaxTime: def.MaxTime, Grace: DefaultGrace,
	}
	// The embedded roles ship with grove: they are as trusted as the
	// built-ins.
	a.Builtin = t.Scope == "embedded" || t.Builtin
	if a.Prompt == "" && len(t.Personas) > 0 {
		a.Prompt = t.Personas[0].Prompt
	}
	if strings.TrimSpace(a.Prompt) == "" {
		a.Prompt = defaultSystemPrompt
	}
	if d := t.Task; d != nil {
		a.Type = d.AgentType
		if d.DisplayName != "" && a.WhenToUse == "" {
			a.WhenToUse = d.DisplayName
		}
		a.Query = d.PromptConfig.Query
		a.InitialMessages = d.PromptConfig.InitialMessages
		a.ForkContext = d.ForkContext
		if d.RunConfig.MaxTurns > 0 {
			a.MaxTurns = d.RunConfig.MaxTurns
		}
		if d.RunConfig.MaxTimeSeconds > 0 {
			a.MaxTime = time.Duration(d.RunConfig.MaxTimeSeconds) * time.Second
		}
		if g := d.RunConfig.GracePeriodSeconds; g != nil {
			a.Grace = time.Duration(*g) * time.Second
		}
		if d.InputConfig != nil {
			a.Inputs = d.InputConfig.Inputs
		}
		a.Output = d.OutputConfig
		a.ApprovalMode = d.ApprovalMode
		a.ExecutionMode = d.ExecutionMode
		if a.ExecutionMode == "" {
			a.ExecutionMode = templates.ExecutionLightweight
		}
		a.Temperature, a.TopP = d.ModelConfig.Temperature, d.ModelConfig.TopP
		a.BaseDir = strings.TrimSpace(d.BaseDir)
	}
	return a
}

// Registry is the agents the Task tool can start: the catalog's (nearest
// first) and the built-ins.
type Registry struct {
	agents   []*Agent
	problems []templates.Problem
}

// NewRegistry builds the registry from a template catalog (nil = only
// the built-ins). A catalog template named like a built-in replaces it.
// The built-ins keep their own limits (seed 004 §4 sets them).
func NewRegistry(cat *templates.Catalog, def Defaults) *Registry {
	r := &Registry{problems: cat.Problems()}
	taken := map[string]bool{}
	def = def.orSeed()
	for _, t := range cat.All() {
		a := fromTemplate(t, def)
		r.agents = append(r.agents, a)
		taken[strings.ToLower(a.Type)] = true
	}
	for _, b := range builtins() {
		if !taken[strings.ToLower(b.Type)] {
			r.agents = append(r.agents, b)
		}
	}
	sort.SliceStable(r.agents, func(i, j int) bool {
		if r.agents[i].Builtin != r.agents[j].Builtin {
			return r.agents[i].Builtin
		}
		return r.agents[i].Type < r.agents[j].Type
	})
	return r
}

// Lookup finds an agent by its exact type, then case-insensitively.
func (r *Registry) Lookup(name string) (*Agent, bool) {
	for _, a := range r.agents {
		if a.Type == name {
			return a, true
		}
	}
	for _, a := range r.agents {
		if strings.EqualFold(a.Type, name) {
			return a, true
		}
	}
	return nil, false
}

// Types lists the agent types sorted by name, as seed 004 §3.3's
// list_types does (shadowed built-ins are already gone: no duplicates).
func (r *Registry) Types() []string {
	out := make([]string, len(r.agents))
	for i, a := range r.agents {
		out[i] = a.Type
	}
	sort.Strings(out)
	return out
}

// unknownTypeError is seed 004's error, plus the definition files that
// were skipped (one may be the agent the model asked for).
func (r *Registry) unknownTypeError(name string) string {
	quoted := make([]string, 0, len(r.agents))
	for _, t := range r.Types() {
		quoted = append(quoted, fmt.Sprintf("%q", t))
	}
	msg := fmt.Sprintf("Unknown subagent type '%s'. Available: [%s]", name, strings.Join(quoted, ", "))
	for _, p := range r.problems {
		msg += fmt.Sprintf("\nskipped agent file %s:%d: %s", p.Path, p.Line, p.Err)
	}
	return msg
}
