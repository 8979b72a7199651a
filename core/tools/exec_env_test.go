package tools

import (
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/shellenv"
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

// issue 9: `env` in a (read-only) child printed the provider key.
// issue 21: PGPASSWORD, DATABASE_URL with a password, GH_PAT, MYSQL_PWD,
// OPENAI_KEY and KEY (holding the provider key) still got through.
func TestExecEnvHasNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-do-not-leak-0")
	t.Setenv("GITHUB_TOKEN", "ghp-do-not-leak")
	t.Setenv("CORP_LLM", "corp-do-not-leak")
	t.Setenv("PGPASSWORD", "pg-do-not-leak")
	t.Setenv("DATABASE_URL", "postgres://app:db-do-not-leak@db/app")
	t.Setenv("GH_PAT", "pat-do-not-leak")
	t.Setenv("MYSQL_PWD", "mysql-do-not-leak")
	t.Setenv("OPENAI_KEY", "openai-do-not-leak")
	t.Setenv("KEY", "sk-do-not-leak-0")
	t.Setenv("PROVIDER_COPY", "sk-do-not-leak-0")
	t.Setenv("SAFE_VALUE", "visible")
	freshLoginEnv(t)
	shellenv.SetPolicy(shellenv.Policy{SecretNames: []string{"CORP_LLM"}, Set: map[string]string{"FROM_CONFIG": "yes"}})
	t.Cleanup(func() { shellenv.SetPolicy(shellenv.Policy{}) })
	r := coreRegistry(t)
	env := testEnv(t)
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "env"})
	if strings.Contains(res.Output, "do-not-leak") || !strings.Contains(res.Output, "SAFE_VALUE=visible") || !strings.Contains(res.Output, "FROM_CONFIG=yes") {
		t.Fatalf("command environment:\n%s", res.Output)
	}
}

// inherit = "core" through a real command: only the core names and set.
func TestExecEnvInheritCore(t *testing.T) {
	t.Setenv("SAFE_VALUE", "visible")
	freshLoginEnv(t)
	shellenv.SetPolicy(shellenv.Policy{Inherit: shellenv.InheritCore, Set: map[string]string{"FROM_CONFIG": "yes"}})
	t.Cleanup(func() { shellenv.SetPolicy(shellenv.Policy{}) })
	r := coreRegistry(t)
	res := run(t, r, testEnv(t), "exec_command", map[string]any{"cmd": "env"})
	if strings.Contains(res.Output, "SAFE_VALUE") || !strings.Contains(res.Output, "FROM_CONFIG=yes") || !strings.Contains(res.Output, "PATH=") {
		t.Fatalf("command environment:\n%s", res.Output)
	}
}
