package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EditValues edits the file line by line: comments, other keys and other
// tables stay as written.
func TestEditValuesKeepsTheRestOfTheFile(t *testing.T) {
	const in = `# top comment
model = "a"

[sandbox_workspace_write]
# roots comment
writable_roots = [
  "/x",
]
network_access = true

[mcp_servers.docs]
command = "docs"
`
	for _, tc := range []struct {
		name  string
		edits []ValueEdit
		want  string
	}{
		{"new root key goes before the first table", []ValueEdit{{KeyPath: "sandbox_mode", Value: "read-only"}},
			"# top comment\nmodel = \"a\"\nsandbox_mode = \"read-only\"\n\n[sandbox_workspace_write]\n# roots comment\nwritable_roots = [\n  \"/x\",\n]\nnetwork_access = true\n\n[mcp_servers.docs]\ncommand = \"docs\"\n"},
		{"multi-line value replaced", []ValueEdit{{KeyPath: "sandbox_workspace_write.writable_roots", Value: []any{"/y"}}},
			"# top comment\nmodel = \"a\"\n\n[sandbox_workspace_write]\n# roots comment\nwritable_roots = [\"/y\"]\nnetwork_access = true\n\n[mcp_servers.docs]\ncommand = \"docs\"\n"},
		{"table replaced keeps its comment", []ValueEdit{{KeyPath: "sandbox_workspace_write", Value: map[string]any{"network_access": false}}},
			"# top comment\nmodel = \"a\"\n\n[sandbox_workspace_write]\nnetwork_access = false\n# roots comment\n\n[mcp_servers.docs]\ncommand = \"docs\"\n"},
		{"upsert merges into the table", []ValueEdit{{KeyPath: "sandbox_workspace_write", Value: map[string]any{"exclude_tmpdir_env_var": true}, Upsert: true}},
			"# top comment\nmodel = \"a\"\n\n[sandbox_workspace_write]\n# roots comment\nwritable_roots = [\n  \"/x\",\n]\nnetwork_access = true\nexclude_tmpdir_env_var = true\n\n[mcp_servers.docs]\ncommand = \"docs\"\n"},
		{"null removes the key", []ValueEdit{{KeyPath: "model"}},
			"# top comment\n\n[sandbox_workspace_write]\n# roots comment\nwritable_roots = [\n  \"/x\",\n]\nnetwork_access = true\n\n[mcp_servers.docs]\ncommand = \"docs\"\n"},
		{"new table appended", []ValueEdit{{KeyPath: "mcp_servers.web.command", Value: "web"}},
			in + "\n[mcp_servers.web]\ncommand = \"web\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := EditValues(path, tc.edits)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if string(out) != tc.want || string(b) != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", b, tc.want)
			}
		})
	}
}

// A file the line editor cannot follow (a quoted key) is refused, not
// written wrong; an unknown key is refused with Codex's code.
func TestEditValuesRefuses(t *testing.T) {
	for _, tc := range []struct {
		in   string
		edit ValueEdit
		code string
	}{
		{"\"model\" = \"a\"\n", ValueEdit{KeyPath: "model", Value: "b"}, "configValidationError"},
		{"", ValueEdit{KeyPath: "not_a_grove_key", Value: "b"}, "configSchemaUnknownKey"},
		{"", ValueEdit{KeyPath: "model", Value: int64(3)}, "configValidationError"},
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := EditValues(path, []ValueEdit{tc.edit})
		var ee *EditError
		if !errors.As(err, &ee) || ee.Code != tc.code {
			t.Fatalf("%q %+v: want %s, got %v", tc.in, tc.edit, tc.code, err)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.in {
			t.Fatalf("file changed: %q", b)
		}
	}
}

// A replaced one-line entry keeps its trailing comment; a '#' inside the
// old string is not taken for one.
func TestEditValuesKeepsTrailingComment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("model = \"a#b\" # pinned\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := EditValues(path, []ValueEdit{{KeyPath: "model", Value: "z"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "model = \"z\" # pinned\n"; string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// A check that refuses the edited content leaves the file as it was and
// answers Codex's configValidationError "Invalid configuration: …"
// (codex-rs core/src/config/service.rs validates before it persists);
// LoadWith's Content reads the edit as the file.
func TestEditValuesCheckedRefusesAndKeepsFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	if err := os.WriteFile(path, []byte("model = \"a\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(content []byte) error {
		cfg, err := LoadWith(LoadOptions{Home: home, Content: content})
		if err != nil {
			return err
		}
		_, err = cfg.ResolveProvider(func(string) string { return "" })
		return err
	}
	_, err := EditValuesChecked(path, []ValueEdit{{KeyPath: "model_provider", Value: "nowhere"}}, check)
	var ee *EditError
	if !errors.As(err, &ee) || ee.Code != "configValidationError" || !strings.HasPrefix(ee.Message, "Invalid configuration: model_provider \"nowhere\" is not defined") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "model = \"a\"\n" {
		t.Fatalf("file changed: %q", b)
	}
	out, err := EditValuesChecked(path, []ValueEdit{{KeyPath: "model", Value: "b"}}, check)
	if err != nil || string(out) != "model = \"b\"\n" {
		t.Fatalf("good edit: %q, %v", out, err)
	}
}
