package tools

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/model"
)

// Models are trained inside one harness and call its tools by habit, so
// each model family is offered the tools it was trained on. Every tool is
// registered once in one Registry (one orchestrator, one sandbox); a
// family's ToolSet only decides which of them the model is offered and in
// which form. A registered tool a family is not offered still runs when a
// model calls it anyway: the call is answered, never lost.
//
// Adding a family (Claude models get Claude Code's tools): add a Family
// constant and one familyRule to familyRules — its own tools, the shared
// tools it does not get, and how its model names are recognised.

// Family is the tool harness a model family was trained in.
type Family string

// The families grove knows.
const (
	// FamilyGrove is grove's own set (read_file, list_dir, grep_files):
	// models that were not trained in a harness grove mirrors.
	FamilyGrove Family = "grove"
	// FamilyCodex is Codex CLI's set, for GPT-5.x and codex models:
	// exec_command and write_stdin, freeform apply_patch, view_image,
	// request_user_input, update_plan (codex-rs/core/src/tools/spec.rs).
	// write_stdin is everyone's: any model's exec_command can leave a
	// session running.
	FamilyCodex Family = "codex"
	// FamilyClaude is Claude Code's set, for Claude models (claude*,
	// anthropic/…): Bash (with BashOutput and TaskStop for its background
	// shells), Read, Write, Edit, MultiEdit, Glob, Grep, TodoWrite
	// (claude_*.go). It gets none of the Codex or grove core tools.
	FamilyClaude Family = "claude"
)

// ToolConfig is the user's say in the tool set (config keys tool_family,
// web_search and Codex's older tools.web_search).
type ToolConfig struct {
	// Family forces a family for every model ("" = by model name).
	Family Family
	// WebSearch is Codex's web_search mode: "disabled" (or ""), "cached"
	// or "live". Other than disabled, the Responses hosted web_search
	// tool is offered (Chat Completions has none).
	WebSearch string
	// WebSearchOptions shape the hosted tool.
	WebSearchOptions WebSearchOptions
	// NoLoginShell is Codex's allow_login_shell = false: exec_command's
	// `login` parameter is not offered, `login: true` is refused and
	// commands run without the login environment (loginshell.go).
	NoLoginShell bool
}

// familyRule is one family's place in the registry.
type familyRule struct {
	family Family
	// matches recognises the family's model names (lower case, provider
	// prefix removed).
	matches func(model string) bool
	// own are tools only this family is offered.
	own []string
	// drops are shared tools this family is not offered.
	drops []string
	// freeform says which tools go as freeform custom tools for a model.
	freeform func(model string) map[string]*model.FreeformFormat
}

// familyRules, in the order model names are tried; the last rule (grove)
// matches every model.
var familyRules = []familyRule{
	{
		family:  FamilyClaude,
		matches: isClaudeModel,
		own:     claudeCore,
		drops:   append(append([]string(nil), codexCore...), "view_image", "request_user_input", "write_stdin"),
	},
	{
		family:   FamilyCodex,
		matches:  isCodexModel,
		own:      []string{"view_image", "request_user_input"},
		drops:    []string{"read_file", "list_dir", "grep_files"},
		freeform: codexFreeform,
	},
	{family: FamilyGrove, matches: func(string) bool { return true }},
}

// isClaudeModel: Anthropic's models (the provider prefix is already
// removed: anthropic/claude-… and bedrock/anthropic.claude-… too).
func isClaudeModel(m string) bool {
	return strings.HasPrefix(m, "claude") || strings.HasPrefix(m, "anthropic.claude")
}

// isCodexModel: the GPT-5.x and codex models Codex's models.json lists
// (gpt-5*, *codex*), and gpt-oss, which Codex also drives with its tools.
func isCodexModel(m string) bool {
	return strings.HasPrefix(m, "gpt-5") || strings.Contains(m, "codex") || strings.HasPrefix(m, "gpt-oss")
}

// codexFreeform: Codex sends apply_patch as a freeform tool to every model
// with apply_patch_tool_type "freeform" and as a function to gpt-oss.
func codexFreeform(m string) map[string]*model.FreeformFormat {
	if strings.HasPrefix(m, "gpt-oss") {
		return nil
	}
	return map[string]*model.FreeformFormat{"apply_patch": applyPatchFreeform()}
}

// ParseFamily reads a tool_family value ("" = by model).
func ParseFamily(s string) (Family, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, r := range familyRules {
		if string(r.family) == s {
			return r.family, nil
		}
	}
	names := make([]string, 0, len(familyRules))
	for _, r := range familyRules {
		names = append(names, string(r.family))
	}
	return "", fmt.Errorf("tool_family %q: expected auto, %s", s, strings.Join(names, ", "))
}

// ToolSet is the tools one model is offered, and their form.
type ToolSet struct {
	Family Family
	rule   familyRule
	model  string
	cfg    ToolConfig
}

// ToolSetFor is the tool set offered to modelName under cfg.
func ToolSetFor(modelName string, cfg ToolConfig) ToolSet {
	m := normalizeModel(modelName)
	set := ToolSet{model: m, cfg: cfg}
	for _, r := range familyRules {
		if (cfg.Family == "" && r.matches(m)) || r.family == cfg.Family {
			set.rule, set.Family = r, r.family
			return set
		}
	}
	last := familyRules[len(familyRules)-1]
	set.rule, set.Family = last, last.family
	return set
}

// normalizeModel lower-cases a model name and drops a provider prefix
// ("openai/gpt-5.1-codex" → "gpt-5.1-codex").
func normalizeModel(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// Offers reports whether the set offers a tool of this name.
func (s ToolSet) Offers(name string) bool {
	for _, d := range s.rule.drops {
		if d == name {
			return false
		}
	}
	for _, r := range familyRules {
		if r.family == s.Family {
			continue
		}
		for _, o := range r.own {
			if o == name && !s.owns(name) {
				return false
			}
		}
	}
	return true
}

func (s ToolSet) owns(name string) bool {
	for _, o := range s.rule.own {
		if o == name {
			return true
		}
	}
	return false
}

// Offer shapes the specs of the allowed tools for this model: tools of
// other families and dropped ones are left out, freeform tools get their
// grammar, and web search is added when configured.
func (s ToolSet) Offer(specs []model.ToolSpec) []model.ToolSpec {
	var ff map[string]*model.FreeformFormat
	if s.rule.freeform != nil {
		ff = s.rule.freeform(s.model)
	}
	out := make([]model.ToolSpec, 0, len(specs)+1)
	for _, sp := range specs {
		if !s.Offers(sp.Name) {
			continue
		}
		if f := ff[sp.Name]; f != nil {
			sp.Freeform = f
		}
		if s.cfg.NoLoginShell {
			sp = withoutLoginParameter(sp)
		}
		out = append(out, sp)
	}
	if ws, ok := webSearchSpec(s.cfg.WebSearch, s.cfg.WebSearchOptions); ok {
		out = append(out, ws)
	}
	return out
}
