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
		"[shell_environment_policy]\nexclude = [\"[\"]\n":         `shell_environment_policy.exclude: bad glob "["`,
		"[shell_environment_policy]\nset = { \"A=B\" = \"x\" }\n": `bad variable name "A=B"`,
	} {
		if _, err := Load(writeConfig(t, body), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", body, want, err)
		}
	}
}
