package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestLoadDefaultsWithoutFile(t *testing.T) {
	cfg, err := Load(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ApprovalPolicy != protocol.ApprovalOnRequest || cfg.SandboxMode != protocol.SandboxWorkspaceWrite {
		t.Fatalf("defaults: %+v", cfg)
	}
	if cfg.Agents.MaxThreads != 12 || cfg.Agents.MaxDepth != 3 {
		t.Fatalf("agent defaults: %+v", cfg.Agents)
	}
	kinds, _ := cfg.NotificationKinds()
	if !kinds["sub-agent-complete"] || !kinds["turn-complete"] {
		t.Fatalf("notifications default all: %v", kinds)
	}
}

func TestLoadFileAndOverrides(t *testing.T) {
	home := writeConfig(t, `
model = "llama3"
model_provider = "local"
approval_policy = "untrusted"

[model_providers.local]
base_url = "http://127.0.0.1:8080/v1"
wire_api = "chat"
http_headers = { "X-Team" = "grove" }

[agents]
max_threads = 4

[tui]
notifications = ["sub-agent-complete"]
`)
	cfg, err := Load(home, []string{"agents.max_depth=5", "model=qwen", "sandbox_mode=read-only", "tui.notification_method=bel", "model_auto_compact_token_limit=5000", "model_context_window=32000"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModelAutoCompactTokenLimit != 5000 || cfg.ModelContextWindow != 32000 {
		t.Fatalf("compaction keys: %d %d", cfg.ModelAutoCompactTokenLimit, cfg.ModelContextWindow)
	}
	if cfg.Model != "qwen" || cfg.Agents.MaxDepth != 5 || cfg.Agents.MaxThreads != 4 || cfg.SandboxMode != protocol.SandboxReadOnly {
		t.Fatalf("overrides not applied: %+v", cfg)
	}
	kinds, err := cfg.NotificationKinds()
	if err != nil || !kinds["sub-agent-complete"] || kinds["turn-complete"] {
		t.Fatalf("kinds %v %v", kinds, err)
	}
	r, err := cfg.ResolveProvider(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if r.Demo || r.BaseURL != "http://127.0.0.1:8080/v1" || r.WireAPI != "chat" || r.Headers["X-Team"] != "grove" || r.Model != "qwen" {
		t.Fatalf("resolved %+v", r)
	}
}

func TestLoadErrorsNameTheKey(t *testing.T) {
	cases := map[string]string{
		`approval_policy = "sometimes"`:           "approval_policy",
		`sandbox_mode = "yolo"`:                   "sandbox_mode",
		"[agents]\nmax_threads = -1":              "agents.max_threads",
		"[tui]\nnotifications = \"bogus\"":        "tui.notifications",
		"[tui]\nnotifications = [1]":              "tui.notifications",
		"[tui]\nnotification_method = \"fax\"":    "tui.notification_method",
		"[tui]\nalternate_screen = \"sometimes\"": "tui.alternate_screen",
		"model = [": "config.toml",
		"[model_providers.x]\nwire_api = \"grpc\"":  "wire_api",
		"model_context_window = -5":                 "model_context_window",
		"model_auto_compact_token_limit = -1":       "model_auto_compact_token_limit",
		"model_auto_compact_token_limit = \"lots\"": "model_auto_compact_token_limit",
	}
	for body, want := range cases {
		_, err := Load(writeConfig(t, body), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want mention of %q", body, err, want)
		}
	}
	if _, err := Load(t.TempDir(), []string{"novalue"}); err == nil || !strings.Contains(err.Error(), "key=value") {
		t.Errorf("bad override: %v", err)
	}
}

func TestUnknownKeyIsWarning(t *testing.T) {
	cfg, err := Load(writeConfig(t, "modle = \"x\"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "modle") {
		t.Fatalf("warnings %v", cfg.Warnings)
	}
}

func TestResolveProvider(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg, _ := Load(t.TempDir(), nil)
	r, err := cfg.ResolveProvider(env(nil))
	if err != nil || !r.Demo {
		t.Fatalf("no key → demo, got %+v %v", r, err)
	}
	r, err = cfg.ResolveProvider(env(map[string]string{"OPENAI_API_KEY": "sk-test"}))
	if err != nil || r.Demo || r.WireAPI != "responses" || r.APIKey != "sk-test" || r.BaseURL != "https://api.openai.com/v1" {
		t.Fatalf("openai: %+v %v", r, err)
	}
	r, err = cfg.ResolveProvider(env(map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1/"}))
	// Codex keeps the Responses wire at a custom base URL (issue 34).
	if err != nil || r.WireAPI != "responses" || r.BaseURL != "http://localhost:11434/v1" {
		t.Fatalf("base url only: %+v %v", r, err)
	}
	cfg.ModelProvider = "nope"
	if _, err := cfg.ResolveProvider(env(nil)); err == nil || !strings.Contains(err.Error(), "[model_providers.nope]") {
		t.Fatalf("unknown provider: %v", err)
	}
	cfg.ModelProvider = "openai"
	if _, err := cfg.ResolveProvider(env(nil)); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
}

// TestTypeErrorsCiteTheFileLine: a type error names the line of the file
// as written (comments, blank lines and table order make the re-encoded
// text differ), and an error from -c blames the override, not a file.
func TestTypeErrorsCiteTheFileLine(t *testing.T) {
	body := "# grove settings\nmodel = \"m\"\n\n[agents]\nmax_threads = \"12\"\n"
	home := writeConfig(t, body)
	_, err := Load(home, nil)
	if err == nil || !strings.Contains(err.Error(), "line 5") || !strings.Contains(err.Error(), filepath.Join(home, "config.toml")) {
		t.Fatalf("err %v, want line 5 of the file", err)
	}
	// The same mistake in an override, with no config file at all.
	_, err = Load(t.TempDir(), []string{`agents.max_threads="12"`})
	if err == nil || !strings.Contains(err.Error(), `-c "agents.max_threads=\"12\""`) || strings.Contains(err.Error(), "config.toml") || strings.Contains(err.Error(), "line") {
		t.Fatalf("override error %v", err)
	}
	// A valid file with a bad override blames the override.
	_, err = Load(writeConfig(t, "model = \"m\"\n"), []string{"agents.max_depth=deep"})
	if err == nil || !strings.HasPrefix(err.Error(), `-c "agents.max_depth=deep"`) {
		t.Fatalf("override error %v", err)
	}
	// A value check (not a type error) without a file names no file.
	_, err = Load(t.TempDir(), []string{"agents.max_threads=-1"})
	if err == nil || strings.Contains(err.Error(), "config.toml") || !strings.Contains(err.Error(), "agents.max_threads") {
		t.Fatalf("value error %v", err)
	}
}
