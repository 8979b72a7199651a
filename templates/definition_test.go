package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeAgents(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(dir, ".grove", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(agents, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestYAMLDefinitionWithCamelCaseKeys(t *testing.T) {
	dir := writeAgents(t, map[string]string{"r.yaml": `agentType: Code-Reviewer
displayName: Reviewer
whenToUse: Reviews code
tools: [Read, glob_files, shell]
disallowedTools: [Bash]
modelConfig: {model: sonnet, temperature: 0.2}
runConfig: {maxTurns: 7, maxTimeSeconds: 30, gracePeriodSeconds: 5}
inputConfig:
  inputs:
    file_path: {type: string, required: true, description: the file}
outputConfig:
  outputName: report
  description: the report
  schema: {type: object, properties: {summary: {type: string}}, required: [summary]}
promptConfig:
  systemPrompt: Review ${file_path}
surface: task
`})
	cat := Load(Dirs{Cwd: dir}, Options{ModelAliases: map[string]string{"sonnet": "claude-sonnet-x"}})
	tpl, err := cat.Lookup("code-reviewer")
	if err != nil {
		t.Fatalf("lookup: %v (problems %v)", err, cat.Problems())
	}
	d := tpl.Task
	if d == nil || d.AgentType != "Code-Reviewer" || d.RunConfig.MaxTurns != 7 || *d.RunConfig.GracePeriodSeconds != 5 || d.OutputConfig.OutputName != "report" || !d.InputConfig.Inputs["file_path"].Required {
		t.Fatalf("definition = %+v", d)
	}
	if tpl.Format != "task" || tpl.Surface != "task" || tpl.Model != "claude-sonnet-x" || tpl.Description != "Reviews code" || tpl.DefaultPrompt != "Review ${file_path}" {
		t.Errorf("template = %+v", tpl)
	}
	if got := strings.Join(tpl.AllowList, ","); got != "read_file,list_dir,grep_files,exec_command" {
		t.Errorf("allow = %s", got)
	}
	if got := strings.Join(tpl.DenyList, ","); got != "exec_command" {
		t.Errorf("deny = %s", got)
	}
}

func TestMarkdownWithSeed004Frontmatter(t *testing.T) {
	dir := writeAgents(t, map[string]string{"rev.md": "---\nagentType: rev\nwhenToUse: reviews\ntools: [\"read_file\"]\nrunConfig:\n  maxTimeSeconds: 180\n---\n\nYou review ${file_path}.\n"})
	cat := Load(Dirs{Cwd: dir}, Options{})
	tpl, err := cat.Lookup("rev")
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Task == nil || tpl.Task.RunConfig.MaxTimeSeconds != 180 || tpl.DefaultPrompt != "You review ${file_path}." {
		t.Errorf("template = %+v, task = %+v", tpl, tpl.Task)
	}
}

func TestBadDefinitionIsAProblemNotAnOutage(t *testing.T) {
	dir := writeAgents(t, map[string]string{
		"bad.yaml":  "agentType: bad\nrunConfig:\n  maxTurn: 3\n",
		"bad2.yml":  "agentType: bad2\ninputConfig:\n  inputs:\n    x: {type: strin}\n",
		"bad3.yaml": "agentType: bad3\npromptConfig:\n  initialMessages:\n    - {role: system, content: hi}\n",
		"good.yaml": "agentType: good\nwhenToUse: fine\n",
		"role.md":   "---\ndescription: a role\n---\nDo things.\n",
	})
	cat := Load(Dirs{Cwd: dir}, Options{})
	for _, n := range []string{"good", "role", "worker"} {
		if _, err := cat.Lookup(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	probs := cat.Problems()
	if len(probs) != 3 {
		t.Fatalf("problems = %+v", probs)
	}
	for _, p := range probs {
		switch filepath.Base(p.Path) {
		case "bad.yaml":
			if p.Line != 3 || !strings.Contains(p.Err, "maxTurn") {
				t.Errorf("bad.yaml problem = %+v", p)
			}
		case "bad2.yml":
			if !strings.Contains(p.Err, `type "strin"`) {
				t.Errorf("bad2.yml problem = %+v", p)
			}
		case "bad3.yaml":
			if !strings.Contains(p.Err, `promptConfig.initialMessages[0].role "system": expected user or assistant`) {
				t.Errorf("bad3.yaml problem = %+v", p)
			}
		default:
			t.Errorf("unexpected problem %+v", p)
		}
	}
	if _, err := cat.Lookup("bad"); err == nil {
		t.Error("the broken definition resolved")
	}
}

func TestTemplateSurfaceKey(t *testing.T) {
	tpl, err := Parse("x.md", []byte("---\ndescription: d\nsurface: Task\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Surface != "task" {
		t.Errorf("surface = %q", tpl.Surface)
	}
}
