package tools

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// freshLoginEnv makes the next command take a new login-shell snapshot
// (the environment of this test), and the one after the test too.
func freshLoginEnv(t *testing.T) {
	reset := func() {
		loginEnv.once = sync.Once{}
		loginEnv.env = nil
	}
	reset()
	t.Cleanup(reset)
}

func TestFilterEnv(t *testing.T) {
	env := []string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "CORP_LLM=c", "GITHUB_TOKEN=g", "aws_secret_access_key=a", "DB_PASSWORD=p",
		"MY_SECRET=s", "HOME=/h", "TOKENIZERS_PARALLELISM=1", "AWS_REGION=eu", "LANG=C"}
	for _, tc := range []struct {
		name string
		p    ShellEnvPolicy
		want []string
	}{
		{"defaults", ShellEnvPolicy{Secrets: []string{"CORP_LLM"}}, []string{"PATH=/bin", "HOME=/h", "TOKENIZERS_PARALLELISM=1", "AWS_REGION=eu", "LANG=C"}},
		{"exclude globs, any case", ShellEnvPolicy{Exclude: []string{"aws_*", "l?ng"}}, []string{"PATH=/bin", "CORP_LLM=c", "HOME=/h", "TOKENIZERS_PARALLELISM=1"}},
		{"include only", ShellEnvPolicy{IncludeOnly: []string{"PATH", "HOME", "*_TOKEN"}}, []string{"PATH=/bin", "HOME=/h"}},
		{"ignore default excludes keeps provider keys out", ShellEnvPolicy{IgnoreDefaultExcludes: true, Secrets: []string{"CORP_LLM"}, IncludeOnly: []string{"*_TOKEN", "*_API_KEY", "CORP_*"}},
			[]string{"GITHUB_TOKEN=g"}},
		{"set wins last", ShellEnvPolicy{IncludeOnly: []string{"PATH"}, Set: map[string]string{"CI": "1", "PATH": "/x"}}, []string{"PATH=/bin", "CI=1", "PATH=/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := filterEnv(env, tc.p); !slices.Equal(got, tc.want) {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// issue 9: `env` in a (read-only) child printed the provider key.
func TestExecEnvHasNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-do-not-leak")
	t.Setenv("GITHUB_TOKEN", "ghp-do-not-leak")
	t.Setenv("CORP_LLM", "corp-do-not-leak")
	t.Setenv("SAFE_VALUE", "visible")
	freshLoginEnv(t)
	SetShellEnvPolicy(ShellEnvPolicy{Secrets: []string{"CORP_LLM"}, Set: map[string]string{"FROM_CONFIG": "yes"}})
	t.Cleanup(func() { SetShellEnvPolicy(ShellEnvPolicy{}) })
	r := coreRegistry(t)
	env := testEnv(t)
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "env"})
	if strings.Contains(res.Output, "do-not-leak") || !strings.Contains(res.Output, "SAFE_VALUE=visible") || !strings.Contains(res.Output, "FROM_CONFIG=yes") {
		t.Fatalf("command environment:\n%s", res.Output)
	}
}
