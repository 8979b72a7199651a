package config

import (
	"slices"
	"strings"
	"testing"
)

func TestShellEnvironmentPolicy(t *testing.T) {
	home := writeConfig(t, `
[shell_environment_policy]
exclude = ["AWS_*", "internal_?"]
include_only = ["*"]
ignore_default_excludes = false
set = { CI = "1" }

[model_providers.corp]
base_url = "https://llm.corp/v1"
env_key = "CORP_LLM"
env_http_headers = { "X-Auth" = "CORP_AUTH" }
`)
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.ShellEnvironment
	if !slices.Equal(p.Exclude, []string{"AWS_*", "internal_?"}) || p.Set["CI"] != "1" || len(p.IncludeOnly) != 1 {
		t.Fatalf("policy: %+v", p)
	}
	keys := cfg.ProviderEnvKeys()
	for _, want := range []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY", "CORP_LLM", "CORP_AUTH"} {
		if !slices.Contains(keys, want) {
			t.Errorf("provider keys %v lack %s", keys, want)
		}
	}
	for body, want := range map[string]string{
		"[shell_environment_policy]\ninherit = \"some\"\n":        `shell_environment_policy.inherit: "some" is not one of "all", "core", "none"`,
		"[shell_environment_policy]\nset = { \"A=B\" = \"x\" }\n": `bad variable name "A=B"`,
	} {
		if _, err := Load(writeConfig(t, body), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", body, want, err)
		}
	}
}

// inherit = "core" reaches the policy commands get (issue 21: it was
// ignored), with every provider credential as a secret by name and value.
func TestShellEnvPolicyResolved(t *testing.T) {
	t.Setenv("CORP_LLM", "corp-key-value-1")
	home := writeConfig(t, `
[shell_environment_policy]
inherit = "core"

[model_providers.corp]
base_url = "https://llm.corp/v1"
env_key = "CORP_LLM"
http_headers = { "Authorization" = "Bearer static-header-token" }
`)
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.ShellEnvPolicy("resolved-api-key")
	if p.Inherit != "core" || !slices.Contains(p.SecretNames, "CORP_LLM") {
		t.Fatalf("policy %+v", p)
	}
	for _, v := range []string{"corp-key-value-1", "resolved-api-key", "Bearer static-header-token", "static-header-token"} {
		if !slices.Contains(p.SecretValues, v) {
			t.Errorf("secret values lack %q", v)
		}
	}
	if def := (&Config{}).ShellEnvPolicy(); def.Inherit != "all" {
		t.Errorf("default inherit %q", def.Inherit)
	}
}

// allow_login_shell, experimental_use_profile and the workspace-write temp
// keys are read (Codex's names) and reach the policy and the tools.
func TestLoginShellAndTempKeys(t *testing.T) {
	cfg, err := Load(writeConfig(t, `
sandbox_mode = "workspace-write"
allow_login_shell = false

[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true

[shell_environment_policy]
experimental_use_profile = true
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.SandboxPolicy()
	if cfg.AllowLoginShell() || !p.ExcludeSlashTmp || !p.ExcludeTmpdirEnvVar || !cfg.ShellEnvironment.ExperimentalUseProfile {
		t.Fatalf("allow_login_shell %v, policy %+v", cfg.AllowLoginShell(), p)
	}
	def, err := Load(writeConfig(t, "sandbox_mode = \"workspace-write\"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if dp := def.SandboxPolicy(); !def.AllowLoginShell() || dp.ExcludeSlashTmp || dp.ExcludeTmpdirEnvVar {
		t.Fatalf("defaults: allow_login_shell %v, policy %+v", def.AllowLoginShell(), dp)
	}
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "allow_login_shell") || strings.Contains(w, "exclude_slash_tmp") {
			t.Errorf("warned about a key grove reads: %s", w)
		}
	}
}
