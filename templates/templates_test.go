package templates

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateAgentType(t *testing.T) {
	for in, want := range map[string]string{"worker": "worker", " Worker ": "worker", "code-reviewer": "code-reviewer", "a_b1": "a_b1"} {
		if got, err := ValidateAgentType(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "has space", "dots.no", "slash/no", "ünï"} {
		if _, err := ValidateAgentType(in); err == nil || !strings.HasPrefix(err.Error(), "invalid agent_type") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestSelect(t *testing.T) {
	load := func(name string) *Template {
		t.Helper()
		p := filepath.Join("testdata", "corpus", name)
		b, _ := os.ReadFile(p)
		tpl, err := Parse(p, b)
		if err != nil {
			t.Fatal(err)
		}
		return tpl
	}
	g2 := load("g02-personas.md")
	// Seed 002: the named block replaces the default block.
	if p, per, err := g2.Select("strict"); err != nil || per.Name != "strict" || p != "Be strict." {
		t.Fatalf("named: %q %v", p, err)
	}
	if p, per, err := g2.Select(""); err != nil || per != nil || p != "Default prompt." {
		t.Fatalf("default: %q %v", p, err)
	}
	if _, _, err := g2.Select("zzz"); err == nil || !strings.Contains(err.Error(), `unknown agent_name "zzz"`) || !strings.Contains(err.Error(), "strict, fast") {
		t.Fatalf("unknown: %v", err)
	}
	if p, per, err := load("g06-single-persona.md").Select(""); err != nil || per == nil || p != "Solo prompt." {
		t.Fatalf("single persona fallback: %q %v", p, err)
	}
	if _, _, err := load("g07-no-default-two-personas.md").Select(""); err == nil || !strings.Contains(err.Error(), "choose agent_name from: a, b") {
		t.Fatalf("ambiguous: %v", err)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoveryOrder(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "a", "b")
	home, user := filepath.Join(base, "grovehome"), filepath.Join(base, "home")
	_ = os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	tpl := func(desc string) string { return "---\ndescription: " + desc + "\n---\nprompt\n" }
	write(t, filepath.Join(base, ".grove", "agents", "outside.md"), tpl("above the repo root"))
	write(t, filepath.Join(repo, ".claude", "agents", "x.md"), tpl("repo claude"))
	write(t, filepath.Join(repo, ".codex", ".agents", "x.md"), tpl("repo codex"))
	write(t, filepath.Join(sub, ".claude", "agents", "x.md"), tpl("sub claude"))
	write(t, filepath.Join(repo, ".grove", "agents", "y.md"), tpl("repo grove"))
	write(t, filepath.Join(repo, ".codex", ".agents", "y.md"), tpl("repo codex"))
	write(t, filepath.Join(home, "agents", "worker.md"), tpl("user worker"))
	write(t, filepath.Join(user, ".claude", "agents", "z.md"), tpl("user claude"))
	write(t, filepath.Join(user, ".codex", ".agents", "z.md"), tpl("user codex"))
	c := Load(Dirs{Cwd: sub, GroveHome: home, UserHome: user}, Options{})
	for typ, want := range map[string]string{"x": "sub claude", "y": "repo grove", "worker": "user worker", "z": "user codex", "explorer": "Read-only investigator"} {
		tp, err := c.Lookup(typ)
		if err != nil || !strings.HasPrefix(tp.Description, want) {
			t.Errorf("%s: %v %v", typ, tp, err)
		}
	}
	if _, err := c.Lookup("outside"); err == nil || err.Error() != "missing agent template: outside" {
		t.Errorf("walk must stop at .git: %v", err)
	}
	if tp, _ := c.Lookup("explorer"); tp.Scope != "embedded" || !tp.ReadOnly {
		t.Errorf("embedded explorer %+v", tp)
	}
}

func TestListAgentsShape(t *testing.T) {
	c := Load(Dirs{}, Options{})
	res, err := ListAgents(c, "", false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	got := string(b)
	for _, forbidden := range []string{`"model"`, `"reasoning_effort"`, `"default_prompt"`, `"prompt"`, `"count"`} {
		if strings.Contains(got, forbidden) {
			t.Fatalf("non-expanded output has %s: %s", forbidden, got)
		}
	}
	if !strings.HasPrefix(got, `{"agents":[{"agent_type":"explorer","description":`) || !strings.Contains(got, `"allow_list":[]`) || !strings.Contains(got, `"deny_list":[]`) {
		t.Fatalf("shape: %s", got)
	}
	if strings.Contains(strings.SplitAfter(got, `"agent_type":"orchestrator"`)[1], `"agent_names"`) && !strings.Contains(got, `"name":"careful"`) {
		t.Fatal("agent_names shown for a role without personas")
	}
	res, err = ListAgents(c, "worker", true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(res)
	got = string(b)
	for _, want := range []string{`"model":""`, `"reasoning_effort":""`, `"default_prompt":"You are a worker`, `"name":"careful"`, `"name":"careful","description":"Conservative changes with extra verification; for risky or shared code.","model":"","reasoning_effort":"high","prompt":"You are a worker agent.`} {
		if !strings.Contains(got, want) {
			t.Fatalf("expanded lacks %s: %s", want, got)
		}
	}
	if _, err := ListAgents(c, "Nope!", false); err == nil || !strings.HasPrefix(err.Error(), "invalid agent_type") {
		t.Fatal(err)
	}
	if _, err := ListAgents(c, "nope", false); err == nil || err.Error() != "missing agent template: nope" {
		t.Fatal(err)
	}
}

func FuzzParse(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "corpus"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join("testdata", "corpus", e.Name()))
		f.Add(b)
	}
	for _, front := range []string{"read_only: banana", "readonly: true", "read_onyl: 1", "allow_list: []", "tools: WebFetch", "ReadOnly:"} {
		f.Add([]byte("---\ndescription: d\n" + front + "\n---\nP\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tpl, err := Parse("fuzz.md", data)
		if err == nil && tpl.AgentType != "fuzz" && tpl.Format != "claude" {
			t.Fatalf("agent type %q", tpl.AgentType)
		}
	})
}
