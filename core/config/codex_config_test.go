package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

const profilesConfig = `
model = "gpt-5"
profile = "fast"
approval_policy = "untrusted"

[profiles.fast]
model = "gpt-5-mini"
model_reasoning_effort = "low"

[profiles.careful]
model = "o3"
approval_policy = { granular = { sandbox_approval = false, rules = true, mcp_elicitations = true } }
sandbox_mode = "read-only"
`

func TestProfiles(t *testing.T) {
	home := writeConfig(t, profilesConfig)
	cases := []struct {
		name    string
		opts    LoadOptions
		model   string
		policy  protocol.ApprovalPolicy
		sandbox protocol.SandboxMode
	}{
		{"file's profile", LoadOptions{}, "gpt-5-mini", protocol.ApprovalUntrusted, protocol.SandboxWorkspaceWrite},
		{"-p wins", LoadOptions{Profile: "careful"}, "o3", protocol.ApprovalNever, protocol.SandboxReadOnly},
		// As in Codex: the profile beats a -c of the same top-level key,
		// a dedicated flag (-m) beats the profile.
		{"-c under profile", LoadOptions{Overrides: []string{"model=other"}}, "gpt-5-mini", protocol.ApprovalUntrusted, protocol.SandboxWorkspaceWrite},
		{"-c into profile", LoadOptions{Overrides: []string{"profiles.fast.model=tuned"}}, "tuned", protocol.ApprovalUntrusted, protocol.SandboxWorkspaceWrite},
		{"-m over profile", LoadOptions{Flags: []string{`model="flag"`}}, "flag", protocol.ApprovalUntrusted, protocol.SandboxWorkspaceWrite},
	}
	for _, c := range cases {
		c.opts.Home = home
		cfg, err := LoadWith(c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cfg.Model != c.model || cfg.ApprovalPolicy != c.policy || cfg.SandboxMode != c.sandbox {
			t.Errorf("%s: model %q policy %q sandbox %q", c.name, cfg.Model, cfg.ApprovalPolicy, cfg.SandboxMode)
		}
		if len(cfg.Warnings) != 0 {
			t.Errorf("%s: warnings %q", c.name, cfg.Warnings)
		}
	}
	_, err := LoadWith(LoadOptions{Home: home, Profile: "nope"})
	if err == nil || !strings.Contains(err.Error(), `profile "nope"`) || !strings.Contains(err.Error(), "careful, fast") || !strings.Contains(err.Error(), filepath.Join(home, "config.toml")) {
		t.Fatalf("unknown profile: %v", err)
	}
}

func TestGranularApproval(t *testing.T) {
	for body, want := range map[string]protocol.ApprovalPolicy{
		`approval_policy = { granular = { sandbox_approval = true, rules = false, mcp_elicitations = false } }`:              protocol.ApprovalOnRequest,
		"[approval_policy.granular]\nsandbox_approval = false\nrules = true\nmcp_elicitations = true\nskill_approval = true": protocol.ApprovalNever,
	} {
		cfg, err := Load(writeConfig(t, body), nil)
		if err != nil || cfg.ApprovalPolicy != want {
			t.Errorf("%s: %v %v", body, cfg, err)
		}
	}
	for body, want := range map[string]string{
		`approval_policy = { granular = { sandbox_approval = true } }`:                                     "granular.rules is required",
		`approval_policy = { granular = { sandbox_approval = 1, rules = true, mcp_elicitations = true } }`: "sandbox_approval: expected true or false",
		`approval_policy = { sometimes = true }`:                                                           "granular",
	} {
		if _, err := Load(writeConfig(t, body), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", body, err, want)
		}
	}
}

func TestNotificationNames(t *testing.T) {
	cfg, err := Load(writeConfig(t, "[tui]\nnotifications = [\"agent-turn-complete\", \"approval-requested\", \"sub-agent-complete\", \"plan-mode-prompt\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds, _ := cfg.NotificationKinds()
	if !kinds["turn-complete"] || !kinds["approval-requested"] || !kinds["sub-agent-complete"] {
		t.Errorf("kinds %v", kinds)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `"plan-mode-prompt"`) {
		t.Errorf("warnings %q", cfg.Warnings)
	}
	cfg, _ = Load(writeConfig(t, "[tui]\nnotifications = [\"sub-agent-complete\"]\n"), nil)
	kinds, _ = cfg.NotificationKinds()
	if kinds["turn-complete"] || kinds["approval-requested"] || !kinds["sub-agent-complete"] {
		t.Errorf("only sub-agent-complete: %v", kinds)
	}
}

func TestUnsetEnvKeyIsAnError(t *testing.T) {
	home := writeConfig(t, `
model_provider = "azure"
[model_providers.azure]
base_url = "https://example.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
env_key_instructions = "create a key in the Azure portal"
`)
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.ResolveProvider(func(string) string { return "" })
	for _, want := range []string{"$AZURE_OPENAI_API_KEY", filepath.Join(home, "config.toml"), "Azure portal"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	// The built-in openai provider: CODEX_API_KEY (what Codex's SDK sets)
	// works; a remote OPENAI_BASE_URL without any key does not.
	cfg, _ = Load(t.TempDir(), nil)
	r, err := cfg.ResolveProvider(func(k string) string { return map[string]string{"CODEX_API_KEY": "sk-sdk"}[k] })
	if err != nil || r.APIKey != "sk-sdk" || r.Demo {
		t.Errorf("CODEX_API_KEY: %+v %v", r, err)
	}
	_, err = cfg.ResolveProvider(func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "https://proxy.example.com/v1"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "$OPENAI_API_KEY") {
		t.Errorf("remote base URL without key: %v", err)
	}
}

func TestCodexFallbackOnlyWithoutGroveConfig(t *testing.T) {
	codex := t.TempDir()
	if err := os.WriteFile(filepath.Join(codex, "config.toml"), []byte("model = \"from-codex\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadWith(LoadOptions{Home: writeConfig(t, "model = \"from-grove\"\n"), CodexHome: codex})
	if err != nil || cfg.Model != "from-grove" || cfg.FromCodex {
		t.Fatalf("grove's config first: %+v %v", cfg, err)
	}
	cfg, err = LoadWith(LoadOptions{Home: t.TempDir(), CodexHome: codex})
	if err != nil || cfg.Model != "from-codex" || !cfg.FromCodex || len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "using Codex's "+filepath.Join(codex, "config.toml")) {
		t.Fatalf("fallback: %+v %v", cfg, err)
	}
	if _, err := LoadWith(LoadOptions{Home: t.TempDir(), CodexHome: codex, Overrides: []string{`model_instructions_file="missing.md"`}}); err == nil || !strings.Contains(err.Error(), filepath.Join(codex, "missing.md")) {
		t.Fatalf("model_instructions_file is relative to the config file: %v", err)
	}
}
