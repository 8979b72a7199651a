// Package templates loads agent role templates: Markdown files with YAML
// frontmatter (grove/Codex-fork format, and Claude Code agent files),
// discovered nearest first from the project, the user's directories and
// the embedded defaults.
package templates

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Persona is a named variant of a role (`agent_names`).
type Persona struct {
	Name            string `json:"name"`
	Description     string `json:"description"`
	Model           string `json:"model,omitempty"`
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	Prompt          string `json:"prompt,omitempty"`
}

// Template is one role.
type Template struct {
	AgentType       string
	Description     string
	Model           string
	ReasoningEffort string
	ReadOnly        bool
	Personas        []Persona
	AllowList       []string
	DenyList        []string
	DefaultPrompt   string
	Color           string
	Source          string // file path or "embedded:<name>.md"
	Scope           string // project | user | embedded
	// Builtin: the text is a built-in role's (embedded, or its unedited
	// copy seeded into $GROVE_HOME/agents), as trusted as grove itself.
	Builtin  bool
	Format   string // grove | claude | task (seed 004)
	Warnings []string
	// Surface is the tool surface the role asks for (`surface:`; "" = the
	// session's agents.surface).
	Surface string
	// Host is the [hosts.<name>] machine the role's agents run their tools
	// on (`host:`; "" = where their parent runs them).
	Host string
	// Task is the seed-004 definition (YAML file or camelCase frontmatter);
	// nil for other formats.
	Task *TaskDefinition
}

// ErrNameRequiresType is seed 002's error for a persona without a role.
const ErrNameRequiresType = "agent_name requires a non-default agent_type"

var agentTypeRe = regexp.MustCompile(`^[a-z0-9_-]+$`)

// ValidateAgentType trims and lower-cases s and checks it is snake_case or
// kebab-case.
func ValidateAgentType(s string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if !agentTypeRe.MatchString(n) {
		return "", fmt.Errorf("invalid agent_type %q: expected snake_case or kebab-case ([a-z0-9_-]+)", s)
	}
	return n, nil
}

// Select picks the instructions for agentName (seed 002): the named block
// if given; else the default block; if that is empty and exactly one
// persona exists, that persona.
func (t *Template) Select(agentName string) (string, *Persona, error) {
	if agentName != "" {
		for i := range t.Personas {
			if t.Personas[i].Name == agentName {
				// Seed 002: a named agent_name takes its own block, not the
				// default block as well.
				p := &t.Personas[i]
				return p.Prompt, p, nil
			}
		}
		return "", nil, fmt.Errorf("unknown agent_name %q for agent_type %s; available: %s", agentName, t.AgentType, t.personaNames())
	}
	if strings.TrimSpace(t.DefaultPrompt) != "" {
		return t.DefaultPrompt, nil, nil
	}
	if len(t.Personas) == 1 {
		return t.Personas[0].Prompt, &t.Personas[0], nil
	}
	if len(t.Personas) == 0 {
		return "", nil, fmt.Errorf("agent_type %s (%s) has no prompt", t.AgentType, t.Source)
	}
	return "", nil, fmt.Errorf("agent_type %s has no default prompt; choose agent_name from: %s", t.AgentType, t.personaNames())
}

func (t *Template) personaNames() string {
	if len(t.Personas) == 0 {
		return "(none)"
	}
	names := make([]string, len(t.Personas))
	for i, p := range t.Personas {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// Policy returns the tool allow and deny lists.
func (t *Template) Policy() (allow, deny []string) { return t.AllowList, t.DenyList }

// ParseError is a broken template: file and line.
type ParseError struct {
	Path string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("template %s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("template %s: %s", e.Path, e.Msg)
}

var errNoFrontmatter = errors.New("no YAML frontmatter")
