package templates

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// expect describes what a corpus file resolves to.
type expect struct {
	broken      string // substring of the parse error ("" = must parse)
	agentType   string
	format      string
	description string
	model       string
	effort      string
	readOnly    bool
	allow       []string
	deny        []string
	personas    []string
	prompt      string // substring of the default prompt
	warning     string // substring of one warning
}

var corpus = map[string]expect{
	"g01-basic.md":                   {agentType: "g01-basic", format: "grove", description: "Basic role", prompt: "Do the basic thing."},
	"g02-personas.md":                {agentType: "g02-personas", format: "grove", description: "With personas", model: "m-role", effort: "high", personas: []string{"strict", "fast"}, prompt: "Default prompt."},
	"g03-readonly.md":                {agentType: "g03-readonly", format: "grove", description: "Read only role", readOnly: true, prompt: "Look"},
	"g04-allow-deny.md":              {agentType: "g04-allow-deny", format: "grove", description: "Policy role", allow: []string{"exec_command", "read_*"}, deny: []string{"apply_patch"}},
	"g05-inline-lists.md":            {agentType: "g05-inline-lists", format: "grove", description: "Inline lists", allow: []string{"read_file", "list_dir"}},
	"g06-single-persona.md":          {agentType: "g06-single-persona", format: "grove", description: "Only a persona", personas: []string{"solo"}},
	"g07-no-default-two-personas.md": {agentType: "g07-no-default-two-personas", format: "grove", description: "Two personas no default", personas: []string{"a", "b"}},
	"g08-bom-crlf.md":                {agentType: "g08-bom-crlf", format: "grove", description: "BOM and CRLF", model: "m-crlf", prompt: "Windows prompt."},
	"g09-tabs.md":                    {agentType: "g09-tabs", format: "grove", description: "Tabs inside", allow: []string{"read_file", "grep_files"}, warning: "not strict YAML"},
	"g10-duplicate-keys.md":          {agentType: "g10-duplicate-keys", format: "grove", description: "second wins", warning: "duplicate key"},
	"g11-unquoted-colon.md":          {agentType: "g11-unquoted-colon", format: "grove", description: "Reviews code: finds bugs, suggests fixes", warning: "unquoted"},
	"g12-multiline-unindented.md":    {agentType: "g12-multiline-unindented", format: "grove", description: "A description that goes on for a second line", model: "m-x", warning: "continuation"},
	"g13-block-scalar.md":            {agentType: "g13-block-scalar", format: "grove", description: "Block scalar\ndescription"},
	"g14-quoted.md":                  {agentType: "g14-quoted", format: "grove", description: "Quoted: with colon", effort: "low"},
	"g15-comment.md":                 {agentType: "g15-comment", format: "grove", description: "Has a comment"},
	"g16-read-only-yes.md":           {agentType: "g16-read-only-yes", format: "grove", description: "yes means true", readOnly: true},
	"g17-kebab-name.md":              {agentType: "g17-kebab-name", format: "grove", description: "Kebab file name"},
	"g18_snake_name.md":              {agentType: "g18_snake_name", format: "grove", description: "Snake file name"},
	"b01-no-frontmatter.md":          {broken: "no YAML frontmatter"},
	"b02-unclosed.md":                {broken: "never closed"},
	"b03-persona-missing-block.md":   {broken: `persona "ghost" is declared`},
	"b04-undeclared-block.md":        {broken: `"extra" is not declared`},
	"B05-Bad Name.md":                {broken: "invalid agent_type"},
	"c01-claude-basic.md":            {agentType: "c01-claude-basic", format: "claude", description: "Use this agent when reviewing code", allow: []string{"read_file", "grep_files", "list_dir"}, prompt: "code reviewer"},
	"c02-claude-list-tools.md":       {agentType: "c02-claude-list-tools", format: "claude", description: "Tools as a list", allow: []string{"exec_command", "apply_patch"}, model: "alias-opus"},
	"c03-claude-inherit.md":          {agentType: "c03-claude-inherit", format: "claude", description: "Inherits the model"},
	"c04-claude-mcp-web.md":          {agentType: "c04-claude-mcp-web", format: "claude", description: "Uses web and mcp", allow: []string{"read_file", "mcp__github__create_issue", "update_plan"}, warning: "WebFetch"},
	"c05-claude-task.md":             {agentType: "c05-claude-task", format: "claude", description: "Delegates with Task", allow: []string{"spawn_agent", "wait", "send_input", "close_agent", "list_agents", "list_active_agents", "read_file"}},
	"c06-claude-sloppy.md":           {agentType: "c06-claude-sloppy", format: "claude", description: "Use this agent when: the user asks for tests. Examples: <example>Context: tests user: add tests</example>", allow: []string{"exec_command", "read_file"}, warning: "sonnet"},
	"c07-claude-name-differs.md":     {agentType: "security-auditor", format: "claude", description: "Audits security", allow: []string{"read_file", "grep_files"}},
	"c08-claude-full-model-id.md":    {agentType: "c08-claude-full-model-id", format: "claude", description: "Full model id", model: "claude-sonnet-4-5-20250929"},
	"c09-claude-crlf-bom.md":         {agentType: "c09-claude-crlf-bom", format: "claude", description: "CRLF Claude", allow: []string{"read_file", "exec_command"}, prompt: "CRLF body."},
	"c10-claude-unknown-tool.md":     {agentType: "c10-claude-unknown-tool", format: "claude", description: "Unknown tool", allow: []string{"read_file", "FrobnicateTool", "exec_command"}, warning: "unknown tool"},
	"c11-claude-dup-tools.md":        {agentType: "c11-claude-dup-tools", format: "claude", description: "Duplicate tools key", allow: []string{"read_file", "exec_command"}, warning: "duplicate key"},
	"c12-claude-no-description.md":   {agentType: "c12-claude-no-description", format: "claude", allow: []string{"read_file"}},
}

func TestCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "corpus")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 30 || len(entries) != len(corpus) {
		t.Fatalf("%d corpus files, %d expectations", len(entries), len(corpus))
	}
	opts := Options{ModelAliases: map[string]string{"opus": "alias-opus"}}
	for _, e := range entries {
		name := e.Name()
		want, ok := corpus[name]
		if !ok {
			t.Errorf("no expectation for %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			data, _ := os.ReadFile(path)
			tpl, err := parse(path, data, opts)
			if want.broken != "" {
				if err == nil || !strings.Contains(err.Error(), want.broken) || !strings.Contains(err.Error(), path) {
					t.Fatalf("want error %q naming the file, got %v", want.broken, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tpl.AgentType != want.agentType || tpl.Format != want.format || tpl.Description != want.description ||
				tpl.Model != want.model || tpl.ReasoningEffort != want.effort || tpl.ReadOnly != want.readOnly {
				t.Fatalf("got type=%q format=%q desc=%q model=%q effort=%q ro=%v", tpl.AgentType, tpl.Format, tpl.Description, tpl.Model, tpl.ReasoningEffort, tpl.ReadOnly)
			}
			if !slices.Equal(tpl.AllowList, want.allow) || !slices.Equal(tpl.DenyList, want.deny) {
				t.Fatalf("allow %v deny %v", tpl.AllowList, tpl.DenyList)
			}
			var names []string
			for _, p := range tpl.Personas {
				names = append(names, p.Name)
				if p.Prompt == "" {
					t.Errorf("persona %s has no prompt", p.Name)
				}
			}
			if !slices.Equal(names, want.personas) {
				t.Fatalf("personas %v", names)
			}
			if !strings.Contains(tpl.DefaultPrompt, want.prompt) {
				t.Fatalf("default prompt %q", tpl.DefaultPrompt)
			}
			if want.warning != "" && !strings.Contains(strings.Join(tpl.Warnings, "\n"), want.warning) {
				t.Fatalf("warnings %v lack %q", tpl.Warnings, want.warning)
			}
			if want.warning == "" && len(tpl.Warnings) > 0 && want.format == "grove" {
				t.Fatalf("unexpected warnings %v", tpl.Warnings)
			}
		})
	}
}

// A broken file is reported and skipped; the rest of the directory loads.
func TestLoadCorpusDirectory(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	dst := filepath.Join(cwd, ".claude", "agents")
	_ = os.MkdirAll(dst, 0o755)
	_ = os.Mkdir(filepath.Join(cwd, ".git"), 0o755)
	entries, _ := os.ReadDir(filepath.Join("testdata", "corpus"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join("testdata", "corpus", e.Name()))
		_ = os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
	c := Load(Dirs{Cwd: cwd, GroveHome: home, UserHome: t.TempDir()}, Options{})
	if n := len(c.Problems()); n != 5 {
		t.Fatalf("%d problems: %+v", n, c.Problems())
	}
	for _, p := range c.Problems() {
		if p.Path == "" || p.Line == 0 || p.Err == "" {
			t.Fatalf("problem without path/line: %+v", p)
		}
	}
	if len(c.All()) != 30+3 {
		t.Fatalf("%d templates loaded", len(c.All()))
	}
	if _, err := c.Lookup("b03-persona-missing-block"); err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("broken template lookup: %v", err)
	}
	if _, err := c.Lookup("security-auditor"); err != nil {
		t.Fatal(err)
	}
	// list_agents fails on a template without a description, naming it.
	if _, err := ListAgents(c, "", false); err == nil || !strings.Contains(err.Error(), "c12-claude-no-description") {
		t.Fatalf("invariant: %v", err)
	}
}
