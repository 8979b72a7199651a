package appserver

// Cases ported from openai/codex codex-rs/app-server/tests/suite/v2/
// config_rpc.rs (test named per case).

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/core/config"
)

// startWithConfigFile starts a server whose user layer is a config.toml
// holding content.
func startWithConfigFile(t *testing.T, content string) (*client, string) {
	t.Helper()
	f := newFixture(t, treeScript)
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	c := f.startWith(t, Options{Host: &Host{Config: &config.Config{}, ConfigFile: file, Provider: config.Resolved{Name: "openai", Model: "gpt-old"}, Reload: reloadFile(file)}})
	c.initialize()
	return c, file
}

// reloadFile is Host.Reload over a config file alone (cmd/grove's reads
// grove's home with the command line's overrides): its model is the
// provider's.
func reloadFile(file string) func() (Loaded, error) {
	return func() (Loaded, error) {
		cfg, err := config.Load(filepath.Dir(file), nil)
		if err != nil {
			return Loaded{}, err
		}
		return Loaded{Config: cfg, Provider: config.Resolved{Name: "openai", Model: cfg.Model}}, nil
	}
}

// userLayer is config/read's user layer config.
func userLayer(t *testing.T, c *client) map[string]any {
	t.Helper()
	r := c.result("config/read", map[string]any{"includeLayers": true})
	for _, l := range r["layers"].([]any) {
		if lm := l.(map[string]any); str(lm, "name", "type") == "user" {
			return lm["config"].(map[string]any)
		}
	}
	t.Fatalf("no user layer: %v", r)
	return nil
}

// config_rpc.rs config_value_write_replaces_value: the version config/read
// gave is accepted, the value replaced and config/read's effective model
// is the new one. grove also keeps the comment and the other key of the
// file.
func TestCodexConfigValueWriteReplacesValue(t *testing.T) {
	c, file := startWithConfigFile(t, "# my model\nmodel = \"gpt-old\" # was: \"#x\"\nsandbox_mode = \"read-only\" # keep\n")
	defer c.close()
	read := c.result("config/read", map[string]any{})
	version := str(read["origins"].(map[string]any), "model", "version")
	w := c.result("config/value/write", map[string]any{"keyPath": "model", "value": "gpt-new", "mergeStrategy": "replace", "expectedVersion": version})
	if w["status"] != "ok" || w["filePath"] != file || w["overriddenMetadata"] != nil || w["version"] == version {
		t.Fatalf("config/value/write: %v", w)
	}
	if got := userLayer(t, c)["model"]; got != "gpt-new" {
		t.Fatalf("user layer model = %v", got)
	}
	if got := str(c.result("config/read", map[string]any{}), "config", "model"); got != "gpt-new" {
		t.Fatalf("config/read model = %q, want gpt-new", got)
	}
	b, _ := os.ReadFile(file)
	if want := "# my model\nmodel = \"gpt-new\" # was: \"#x\"\nsandbox_mode = \"read-only\" # keep\n"; string(b) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", b, want)
	}
	if fingerprint(b) != w["version"] {
		t.Fatalf("version %v is not the file's %s", w["version"], fingerprint(b))
	}
}

// config_rpc.rs config_value_write_rejects_version_conflict: a stale
// expectedVersion is refused with configVersionConflict and nothing is
// written.
func TestCodexConfigValueWriteRejectsVersionConflict(t *testing.T) {
	c, file := startWithConfigFile(t, "model = \"gpt-old\"\n")
	defer c.close()
	m := c.call("config/value/write", map[string]any{"filePath": file, "keyPath": "model", "value": "gpt-new", "mergeStrategy": "replace", "expectedVersion": "sha256:stale"})
	e, _ := m["error"].(map[string]any)
	if e == nil || str(e, "data", "config_write_error_code") != "configVersionConflict" {
		t.Fatalf("want configVersionConflict, got %v", m)
	}
	if b, _ := os.ReadFile(file); string(b) != "model = \"gpt-old\"\n" {
		t.Fatalf("file changed: %q", b)
	}
}

// config_rpc.rs config_batch_write_applies_multiple_edits: a scalar and a
// table in one write, read back through config/read.
func TestCodexConfigBatchWriteAppliesMultipleEdits(t *testing.T) {
	c, file := startWithConfigFile(t, "")
	defer c.close()
	w := c.result("config/batchWrite", map[string]any{"filePath": file, "edits": []any{
		map[string]any{"keyPath": "sandbox_mode", "value": "workspace-write", "mergeStrategy": "replace"},
		map[string]any{"keyPath": "sandbox_workspace_write", "value": map[string]any{"writable_roots": []any{"/tmp"}, "network_access": false}, "mergeStrategy": "replace"},
	}})
	if w["status"] != "ok" || w["filePath"] != file {
		t.Fatalf("config/batchWrite: %v", w)
	}
	r := c.result("config/read", map[string]any{})
	sww, _ := r["config"].(map[string]any)["sandbox_workspace_write"].(map[string]any)
	if str(r, "config", "sandbox_mode") != "workspace-write" || sww["network_access"] != false {
		t.Fatalf("config/read after batchWrite: %v", r)
	}
	if roots, _ := sww["writable_roots"].([]any); len(roots) != 1 || roots[0] != "/tmp" {
		t.Fatalf("writable_roots = %v", sww["writable_roots"])
	}
}

// grove's own rules: a key grove does not know is refused with Codex's
// configSchemaUnknownKey, another file with configLayerReadonly; the file
// is left as it was.
func TestConfigWriteRefusesUnknownKeyAndOtherFile(t *testing.T) {
	c, file := startWithConfigFile(t, "model = \"gpt-old\"\n")
	defer c.close()
	for _, tc := range []struct {
		params map[string]any
		code   string
	}{
		{map[string]any{"keyPath": "no_such_key", "value": 1, "mergeStrategy": "replace"}, "configSchemaUnknownKey"},
		{map[string]any{"keyPath": "model", "value": "x", "mergeStrategy": "replace", "filePath": filepath.Join(t.TempDir(), "config.toml")}, "configLayerReadonly"},
		{map[string]any{"keyPath": "model", "value": 5, "mergeStrategy": "replace"}, "configValidationError"},
	} {
		m := c.call("config/value/write", tc.params)
		e, _ := m["error"].(map[string]any)
		if e == nil || str(e, "data", "config_write_error_code") != tc.code {
			t.Fatalf("%v: want %s, got %v", tc.params, tc.code, m)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "model = \"gpt-old\"\n" {
		t.Fatalf("file changed: %q", b)
	}
}

// A key a -c override sets is written to the file and answered
// okOverridden with the sessionFlags layer (Codex's WriteStatus).
func TestConfigWriteOverriddenBySessionFlags(t *testing.T) {
	f := newFixture(t, treeScript)
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte("model = \"gpt-old\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := f.startWith(t, Options{Host: &Host{Config: &config.Config{}, ConfigFile: file, Overrides: []string{"model=gpt-flag"}, Provider: config.Resolved{Name: "openai", Model: "gpt-flag"}}})
	defer c.close()
	c.initialize()
	w := c.result("config/value/write", map[string]any{"keyPath": "model", "value": "gpt-new", "mergeStrategy": "replace"})
	if w["status"] != "okOverridden" || str(w, "overriddenMetadata", "overridingLayer", "name", "type") != "sessionFlags" || str(w, "overriddenMetadata", "effectiveValue") != "gpt-flag" {
		t.Fatalf("config/value/write: %v", w)
	}
	if b, _ := os.ReadFile(file); string(b) != "model = \"gpt-new\"\n" {
		t.Fatalf("file: %q", b)
	}
}

// config/batchWrite with reloadUserConfig: true (Codex's app-server
// config_batch_write_reload_skips_workflow_managed_thread asserts a
// loaded thread's model is unchanged by the reload): the host answers
// with the written model at once, the loaded thread keeps the one it
// started with and runs its next turn.
func TestCodexConfigBatchWriteReloadKeepsLoadedThreadModel(t *testing.T) {
	c, file := startWithConfigFile(t, "model = \"gpt-old\"\n")
	defer c.close()
	id := str(c.result("thread/start", map[string]any{"model": "scripted-model"}), "thread", "id")
	w := c.result("config/batchWrite", map[string]any{"filePath": file, "reloadUserConfig": true, "edits": []any{
		map[string]any{"keyPath": "model", "value": "gpt-new", "mergeStrategy": "replace"},
	}})
	if w["status"] != "ok" {
		t.Fatalf("config/batchWrite: %v", w)
	}
	if got := str(c.result("config/read", map[string]any{}), "config", "model"); got != "gpt-new" {
		t.Fatalf("config/read model = %q, want gpt-new", got)
	}
	if d := c.result("model/list", map[string]any{})["data"].([]any); str(d[0].(map[string]any), "id") != "gpt-new" {
		t.Fatalf("model/list default: %v", d[0])
	}
	turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if got := str(c.result("thread/read", map[string]any{"threadId": id}), "thread", "model"); got != "scripted-model" {
		t.Fatalf("loaded thread model = %q, want the one it started with", got)
	}
}
