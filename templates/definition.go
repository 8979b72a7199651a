package templates

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TaskDefinition is a seed-004 agent definition: a YAML file, or Markdown
// whose frontmatter uses the seed's camelCase keys (agentType, whenToUse,
// runConfig, …). Keys are read strictly: a misspelt key is an error naming
// the file and line, never a silently ignored limit or schema.
type TaskDefinition struct {
	AgentType       string        `yaml:"agentType" json:"agentType"`
	DisplayName     string        `yaml:"displayName" json:"displayName,omitempty"`
	WhenToUse       string        `yaml:"whenToUse" json:"whenToUse,omitempty"`
	Tools           *ToolList     `yaml:"tools" json:"tools,omitempty"`
	DisallowedTools ToolList      `yaml:"disallowedTools" json:"disallowedTools,omitempty"`
	Source          string        `yaml:"source" json:"source,omitempty"`
	BaseDir         string        `yaml:"baseDir" json:"baseDir,omitempty"`
	ModelConfig     ModelConfig   `yaml:"modelConfig" json:"modelConfig"`
	ForkContext     bool          `yaml:"forkContext" json:"forkContext,omitempty"`
	PromptConfig    PromptConfig  `yaml:"promptConfig" json:"promptConfig"`
	RunConfig       RunConfig     `yaml:"runConfig" json:"runConfig"`
	InputConfig     *InputConfig  `yaml:"inputConfig" json:"inputConfig,omitempty"`
	OutputConfig    *OutputConfig `yaml:"outputConfig" json:"outputConfig,omitempty"`
	// DisabledFeatures are Codex feature names (features.go); ExecutionMode
	// is lightweight (default: never asks for approval) or full_codex
	// (approvals follow approvalMode), seed 004 §3.1.1/§3.4.1.
	DisabledFeatures []string `yaml:"disabledFeatures" json:"disabledFeatures,omitempty"`
	ExecutionMode    string   `yaml:"executionMode" json:"executionMode,omitempty"`
	ApprovalMode     string   `yaml:"approvalMode" json:"approvalMode,omitempty"`
	Surface          string   `yaml:"surface" json:"surface,omitempty"`
	// Claude Code spellings of the same fields, accepted in the same file.
	Name        string `yaml:"name" json:"-"`
	Description string `yaml:"description" json:"-"`
	Model       string `yaml:"model" json:"-"`
	Color       string `yaml:"color" json:"-"`
}

// Seed 004 §3.1.1's execution modes (snake_case, as its serde spells them).
const (
	ExecutionLightweight = "lightweight"
	ExecutionFullCodex   = "full_codex"
)

// ToolList is a tool list given as a YAML sequence or a comma-separated
// string.
type ToolList []string

// UnmarshalYAML accepts `[a, b]` and `"a, b"`.
func (l *ToolList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = nil
		for _, p := range strings.Split(n.Value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				*l = append(*l, p)
			}
		}
		return nil
	case yaml.SequenceNode:
		var s []string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*l = s
		return nil
	}
	return fmt.Errorf("line %d: expected a list of tool names", n.Line)
}

// ModelConfig is the definition's model selection.
type ModelConfig struct {
	Model          string   `yaml:"model" json:"model,omitempty"`
	Temperature    *float64 `yaml:"temperature" json:"temperature,omitempty"`
	TopP           *float64 `yaml:"topP" json:"topP,omitempty"`
	ThinkingBudget *int     `yaml:"thinkingBudget" json:"thinkingBudget,omitempty"`
}

// PromptConfig holds the system prompt and query templates (${name})
// and the few-shot messages the agent's conversation starts with.
type PromptConfig struct {
	SystemPrompt    string           `yaml:"systemPrompt" json:"systemPrompt,omitempty"`
	Query           string           `yaml:"query" json:"query,omitempty"`
	InitialMessages []InitialMessage `yaml:"initialMessages" json:"initialMessages,omitempty"`
}

// InitialMessage is one few-shot message: role user or assistant.
type InitialMessage struct {
	Role    string `yaml:"role" json:"role"`
	Content string `yaml:"content" json:"content"`
}

// RunConfig bounds a run; zero values take the seed's defaults.
type RunConfig struct {
	MaxTimeSeconds     int  `yaml:"maxTimeSeconds" json:"maxTimeSeconds,omitempty"`
	MaxTurns           int  `yaml:"maxTurns" json:"maxTurns,omitempty"`
	GracePeriodSeconds *int `yaml:"gracePeriodSeconds" json:"gracePeriodSeconds,omitempty"`
}

// InputConfig declares typed inputs substituted into the prompts.
type InputConfig struct {
	Inputs map[string]InputDefinition `yaml:"inputs" json:"inputs"`
}

// InputDefinition is one input parameter.
type InputDefinition struct {
	Description string `yaml:"description" json:"description"`
	Type        string `yaml:"type" json:"type"`
	Required    bool   `yaml:"required" json:"required,omitempty"`
}

// OutputConfig is the typed result complete_task must submit.
type OutputConfig struct {
	OutputName  string         `yaml:"outputName" json:"outputName"`
	Description string         `yaml:"description" json:"description"`
	Schema      map[string]any `yaml:"schema" json:"schema"`
}

// InputTypes are the seed's input types.
var InputTypes = []string{"string", "number", "boolean", "integer", "string[]", "number[]"}

var (
	definitionTypeRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	identifierRe     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	yamlLineRe       = regexp.MustCompile(`line (\d+)`)
)

// IsTaskFrontmatter reports whether Markdown frontmatter is seed-004's
// (it names agentType).
func IsTaskFrontmatter(fields map[string]any) bool {
	_, ok := fields["agentType"]
	return ok
}

// parseTaskDefinition reads a seed-004 definition; body (Markdown) is the
// system prompt when promptConfig has none. lineOffset maps YAML lines to
// file lines.
func parseTaskDefinition(path string, yamlText []byte, body string, lineOffset int, opts Options) (*Template, error) {
	var d TaskDefinition
	dec := yaml.NewDecoder(bytes.NewReader(yamlText))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		line := 1
		if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + lineOffset
		}
		return nil, &ParseError{Path: path, Line: line, Msg: strings.TrimPrefix(yamlLineRe.ReplaceAllString(err.Error(), "line "+strconv.Itoa(line)), "yaml: ")}
	}
	if d.AgentType == "" {
		d.AgentType = d.Name
	}
	if err := d.validate(); err != nil {
		return nil, &ParseError{Path: path, Line: 1 + lineOffset, Msg: err.Error()}
	}
	if d.PromptConfig.SystemPrompt == "" {
		d.PromptConfig.SystemPrompt = strings.TrimSpace(body)
	}
	if d.WhenToUse == "" {
		d.WhenToUse = d.Description
	}
	if d.ModelConfig.Model == "" {
		d.ModelConfig.Model = d.Model
	}
	t := &Template{Source: path, Format: "task", Task: &d, Color: d.Color, Surface: strings.ToLower(strings.TrimSpace(d.Surface))}
	norm, err := ValidateAgentType(d.AgentType)
	if err != nil {
		return nil, &ParseError{Path: path, Line: 1 + lineOffset, Msg: err.Error()}
	}
	t.AgentType = norm
	t.Description = strings.TrimSpace(d.WhenToUse)
	t.DefaultPrompt = d.PromptConfig.SystemPrompt
	t.Model, t.Warnings = mapClaudeModel(path, d.ModelConfig.Model, opts.ModelAliases, t.Warnings)
	if d.Tools != nil {
		t.AllowList, t.Warnings = MapToolNames(path, *d.Tools, t.Warnings)
		if len(t.AllowList) == 0 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s: tools lists no tool grove has; this agent gets none", path))
			t.DenyList = append(t.DenyList, "*")
		}
	}
	if len(d.DisallowedTools) > 0 {
		var deny []string
		deny, t.Warnings = MapToolNames(path, d.DisallowedTools, t.Warnings)
		t.DenyList = append(t.DenyList, deny...)
	}
	deny, warnings, err := disabledFeatureTools(path, d.DisabledFeatures, t.Warnings)
	if err != nil {
		return nil, &ParseError{Path: path, Line: 1 + lineOffset, Msg: err.Error()}
	}
	t.DenyList, t.Warnings = append(t.DenyList, deny...), warnings
	if d.ApprovalMode == "route_to_parent" && d.ExecutionMode != ExecutionFullCodex {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: approvalMode route_to_parent applies in executionMode full_codex; a lightweight agent never asks for approval (seed 004 §3.4.1)", path))
	}
	return t, nil
}

func (d *TaskDefinition) validate() error {
	if strings.TrimSpace(d.AgentType) == "" {
		return errors.New("agentType is required")
	}
	if !definitionTypeRe.MatchString(d.AgentType) {
		return fmt.Errorf("agentType %q: expected letters, digits, - and _", d.AgentType)
	}
	rc := d.RunConfig
	if rc.MaxTurns < 0 || rc.MaxTimeSeconds < 0 || (rc.GracePeriodSeconds != nil && *rc.GracePeriodSeconds < 0) {
		return errors.New("runConfig: maxTurns, maxTimeSeconds and gracePeriodSeconds must not be negative")
	}
	switch d.ApprovalMode {
	case "", "route_to_parent", "suppress", "auto_approve_in_sandbox":
	default:
		return fmt.Errorf("approvalMode %q: expected route_to_parent, suppress or auto_approve_in_sandbox", d.ApprovalMode)
	}
	switch d.ExecutionMode {
	case "", ExecutionLightweight, ExecutionFullCodex:
	default:
		return fmt.Errorf("executionMode %q: expected lightweight or full_codex", d.ExecutionMode)
	}
	switch d.Source {
	case "", "builtin", "user", "project":
	default:
		return fmt.Errorf("source %q: expected user or project", d.Source)
	}
	for i, m := range d.PromptConfig.InitialMessages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("promptConfig.initialMessages[%d].role %q: expected user or assistant", i, m.Role)
		}
	}
	if d.InputConfig != nil {
		for name, in := range d.InputConfig.Inputs {
			if !identifierRe.MatchString(name) {
				return fmt.Errorf("inputConfig.inputs: %q is not a valid parameter name", name)
			}
			ok := false
			for _, t := range InputTypes {
				ok = ok || in.Type == t
			}
			if !ok {
				return fmt.Errorf("inputConfig.inputs.%s.type %q: expected one of %s", name, in.Type, strings.Join(InputTypes, ", "))
			}
		}
	}
	if oc := d.OutputConfig; oc != nil {
		if !identifierRe.MatchString(oc.OutputName) {
			return fmt.Errorf("outputConfig.outputName %q: expected a parameter name", oc.OutputName)
		}
		if oc.Schema == nil {
			return errors.New("outputConfig.schema is required (a JSON Schema)")
		}
	}
	return nil
}

// groveTools are grove's own tool names, kept as they are.
var groveTools = map[string]bool{"read_file": true, "list_dir": true, "grep_files": true, "exec_command": true, "apply_patch": true, "update_plan": true}

// seedTools maps seed 004's tool names onto grove's.
var seedTools = map[string][]string{
	"glob_files": {"list_dir", "grep_files"},
	"shell":      {"exec_command"},
	"write_file": {"apply_patch"},
}

// MapToolNames maps tool names of any supported spelling (grove's, seed
// 004's, Claude Code's) onto grove's tools, warning about the ones grove
// has no equivalent for.
func MapToolNames(path string, names []string, warnings []string) ([]string, []string) {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		var mapped []string
		switch {
		case groveTools[n]:
			mapped = []string{n}
		case seedTools[n] != nil:
			mapped = seedTools[n]
		default:
			mapped, warnings = mapClaudeTools(path, []string{n}, warnings)
		}
		for _, m := range mapped {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out, warnings
}
