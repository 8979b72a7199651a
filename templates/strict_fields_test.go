package templates

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// read_only takes only a boolean; any other value, and any misspelling of
// a restricting key, refuses the template at the offending file line.
func TestRestrictingFieldsAreStrict(t *testing.T) {
	bad := []struct {
		name, front string
		line        int
		want        string
	}{
		{"banana", "read_only: banana", 3, `read_only must be true or false, not "banana"`},
		{"one", "read_only: 1", 3, "read_only must be true or false, not 1"},
		{"zero string", `read_only: "0"`, 3, `not "0"`},
		{"float", "read_only: 0.5", 3, "not 0.5"},
		{"empty", "read_only:", 3, "read_only has no value"},
		{"list", "read_only: [true]", 3, "read_only must be true or false"},
		{"readonly", "readonly: true", 3, `unknown key "readonly": did you mean "read_only"?`},
		{"read-only", "read-only: true", 3, `did you mean "read_only"?`},
		{"readOnly", "readOnly: true", 3, `did you mean "read_only"?`},
		{"ReadOnly", "ReadOnly: yes", 3, `did you mean "read_only"?`},
		{"typo", "read_onyl: true", 3, `did you mean "read_only"?`},
		{"allowList", "allowList: [read_file]", 3, `did you mean "allow_list"?`},
		{"deny-list", "deny-list: [exec_command]", 3, `did you mean "deny_list"?`},
		{"tool", "tool: Read", 3, `did you mean "tools"?`},
		{"allowedTools", "allowedTools: Read", 3, `did you mean "tools"?`},
		{"sloppy yaml", "readonly: true\nnote: a: b", 3, `did you mean "read_only"?`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			src := "---\ndescription: d\n" + c.front + "\n---\nPrompt.\n"
			_, err := Parse("/x/role.md", []byte(src))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != c.line || !strings.Contains(pe.Msg, c.want) {
				t.Fatalf("got %v, want /x/role.md:%d: …%s…", err, c.line, c.want)
			}
			if !strings.Contains(err.Error(), "/x/role.md:3:") {
				t.Fatalf("error does not name file and line: %v", err)
			}
		})
	}
	good := map[string]bool{"true": true, "false": false, "yes": true, "no": false, `"true"`: true, "True": true, "off": false}
	for v, want := range good {
		tpl, err := Parse("/x/role.md", []byte("---\ndescription: d\nread_only: "+v+"\n---\nPrompt.\n"))
		if err != nil || tpl.ReadOnly != want {
			t.Errorf("read_only: %s → %v %v, want %v", v, tpl, err, want)
		}
	}
	// A leading blank line shifts the reported line.
	_, err := Parse("/x/role.md", []byte("\n---\ndescription: d\n\nread_only: banana\n---\nP\n"))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 5 {
		t.Fatalf("line of read_only after a blank line: %v", err)
	}
}

// The broken template is refused by name and line; the others load.
func TestBadReadOnlyRefusesOnlyThatTemplate(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, ".grove", "agents", "auditor.md"), "---\ndescription: audits\nread_only: banana\n---\nAudit.\n")
	write(t, filepath.Join(cwd, ".grove", "agents", "helper.md"), "---\ndescription: helps\nread_only: true\n---\nHelp.\n")
	c := Load(Dirs{Cwd: cwd}, Options{})
	if _, err := c.Lookup("auditor"); err == nil || !strings.Contains(err.Error(), "auditor.md:3") || !strings.Contains(err.Error(), "banana") {
		t.Fatalf("auditor: %v", err)
	}
	if h, err := c.Lookup("helper"); err != nil || !h.ReadOnly {
		t.Fatalf("helper: %+v %v", h, err)
	}
}

// An allow list that is given but names no grove tool means no tools
// (deny all) with a warning, never "no policy".
func TestAllowListNamingNothingGrantsNoTools(t *testing.T) {
	cases := map[string]string{
		"empty list":       "description: d\nallow_list: []",
		"null list":        "description: d\nallow_list:",
		"claude web tools": "name: webby\ndescription: d\ntools: WebFetch, WebSearch",
		"claude empty":     "name: webby\ndescription: d\ntools: \"\"",
	}
	for name, front := range cases {
		t.Run(name, func(t *testing.T) {
			tpl, err := Parse("/x/webby.md", []byte("---\n"+front+"\n---\nPrompt.\n"))
			if err != nil {
				t.Fatal(err)
			}
			allow, deny := tpl.Policy()
			if len(allow) != 0 || !slices.Contains(deny, "*") {
				t.Fatalf("policy allow=%q deny=%q, want deny-all", allow, deny)
			}
			if !slices.ContainsFunc(tpl.Warnings, func(w string) bool { return strings.Contains(w, "gets no tools") }) {
				t.Fatalf("no warning: %q", tpl.Warnings)
			}
		})
	}
	// Omitting the list keeps seed 002's default: every tool.
	tpl, err := Parse("/x/free.md", []byte("---\ndescription: d\n---\nPrompt.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if allow, deny := tpl.Policy(); len(allow) != 0 || len(deny) != 0 {
		t.Fatalf("no allow_list should mean no policy: %q %q", allow, deny)
	}
}

// User-scope templates (~/.codex/.agents, ~/.claude/agents) override the
// built-ins even where an old grove left unedited seeded copies in
// $GROVE_HOME/agents; an edited copy there is the user's and wins.
func TestUserScopeOverridesBuiltins(t *testing.T) {
	base := t.TempDir()
	home, user := filepath.Join(base, "grove"), filepath.Join(base, "user")
	for _, n := range EmbeddedNames {
		b, err := embedded.ReadFile("agents/" + n + ".md")
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(home, "agents", n+".md"), string(b))
	}
	write(t, filepath.Join(user, ".codex", ".agents", "explorer.md"), "---\ndescription: my explorer\n---\nMine.\n")
	write(t, filepath.Join(user, ".claude", "agents", "orchestrator.md"), "---\nname: orchestrator\ndescription: my claude orchestrator\ntools: Read, Task\n---\nMine.\n")
	c := Load(Dirs{GroveHome: home, UserHome: user}, Options{})
	if e, err := c.Lookup("explorer"); err != nil || e.Description != "my explorer" || e.Scope != "user" {
		t.Fatalf("explorer: %+v %v", e, err)
	}
	if o, err := c.Lookup("orchestrator"); err != nil || o.Description != "my claude orchestrator" {
		t.Fatalf("orchestrator: %+v %v", o, err)
	}
	// The unedited copy is the built-in, shown as the user's file (seed
	// 002: the built-ins seeded into the user agents dir).
	if w, err := c.Lookup("worker"); err != nil || w.Scope != "user" || w.Source != filepath.Join(home, "agents", "worker.md") {
		t.Fatalf("worker should be the built-in from its seeded copy: %+v %v", w, err)
	}
	write(t, filepath.Join(home, "agents", "explorer.md"), "---\ndescription: edited in grove home\n---\nEdited.\n")
	if e, _ := Load(Dirs{GroveHome: home, UserHome: user}, Options{}).Lookup("explorer"); e == nil || e.Description != "edited in grove home" {
		t.Fatalf("an edited $GROVE_HOME copy is the user's own: %+v", e)
	}
	Load(Dirs{GroveHome: filepath.Join(base, "fresh")}, Options{})
	if _, err := os.Stat(filepath.Join(base, "fresh", "agents")); err == nil {
		t.Fatal("loading the catalog seeded $GROVE_HOME/agents")
	}
}
