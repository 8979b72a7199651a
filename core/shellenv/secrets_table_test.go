package shellenv

import (
	"slices"
	"strings"
	"testing"
)

// Issue 31.12: secrets under the names and value shapes that reached
// commands (and through their output the model) in the fourth red-team
// round are dropped by the defaults, under inherit = all and core-less
// policies alike; ordinary variables stay.
func TestSecretNamesAndValuesTable(t *testing.T) {
	secrets := []struct{ name, value string }{
		{"SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX"},
		{"CI_JOB_JWT", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.c2lnbmF0dXJl"},
		{"STRIPE_SK", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"KUBE_BEARER", "abc123def456"},
		{"GIT_CONFIG_VALUE_0", "Authorization: Bearer abc"},
		{"GIT_CONFIG_KEY_0", "http.extraHeader"},
		{"GIT_CONFIG_COUNT", "1"},
		{"GIT_CONFIG_PARAMETERS", "'http.extraheader'='Authorization: basic Zm9v'"},
		{"SESSION_COOKIE", "sid=abcdef"},
		// Harmless names, secret values.
		{"DB", "Server=db;Database=app;User Id=app;Password=hunter2;"},
		{"SQLSERVER", "server=db;uid=app;pwd=hunter2"},
		{"JDBC_URL", "jdbc:postgresql://db:5432/app?user=app&password=hunter2"},
		{"MYSQL_DSN", "mysql://app:hunter2@db/app"},
		{"ID_ONLY", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"},
		{"NOTIFY", "https://discord.com/api/webhooks/123/abcdef"},
		{"TEAMS", "https://acme.webhook.office.com/webhookb2/abc"},
		{"BILLING", "rk_live_51HxYzABCDEFGHIJKLMNOP"},
		{"STRIPE_HOOK", "whsec_ABCDEFGHIJKLMNOPQRSTUV"},
		{"SLACK_BOT", "xoxb-123456789012-abcdefghijklmnop"},
		{"GH", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
		{"GH_FINE", "github_pat_11ABCDEFG0123456789_abcdefghijkl"},
		{"GITLAB", "glpat-ABCDEFGHIJKLMNOPQRST"},
		{"ANTHROPIC", "sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUV"},
		{"OPENAI", "sk-proj-ABCDEFGHIJKLMNOPQRSTUV"},
		{"LEGACY_OPENAI", "sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345678901234567"},
		{"NPMRC", "npm_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
		{"AWS_ID", "AKIAIOSFODNN7EXAMPLE"},
	}
	kept := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", "PWD=/work", "OLDPWD=/", "TERM=xterm-256color",
		"LS_COLORS=di=01;34:ln=01;36", "EDITOR=vim", "SKIP_TESTS=1", "DISK=/dev/sda",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "GOPROXY=https://proxy.golang.org",
		"HOSTNAME=desk-sk-1", "NOTES=see https://example.com/docs?page=2",
	}
	base := slices.Clone(kept)
	for _, s := range secrets {
		base = append(base, s.name+"="+s.value)
	}
	got := Build(base, Policy{Inherit: InheritAll})
	joined := "\n" + strings.Join(got, "\n") + "\n"
	for _, s := range secrets {
		if strings.Contains(joined, "\n"+s.name+"=") || (len(s.value) > 6 && strings.Contains(joined, s.value)) {
			t.Errorf("%s=%s reached the command's environment", s.name, s.value)
		}
		if !IsDefaultSecret(s.name, s.value) {
			t.Errorf("IsDefaultSecret(%s, %q) = false", s.name, s.value)
		}
	}
	for _, kv := range kept {
		if !slices.Contains(got, kv) {
			t.Errorf("%s was dropped", kv)
		}
	}
}

// BenchmarkBuildTypicalEnv: the scrub every command start pays, on a
// 60-variable environment (names and values of a developer's shell).
func BenchmarkBuildTypicalEnv(b *testing.B) {
	var env []string
	for i := range 50 {
		env = append(env, "VAR_"+strings.Repeat("X", i%7)+string(rune('A'+i%26))+"=/usr/local/lib/some/path:/opt/tool/bin")
	}
	env = append(env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/home/u",
		"LS_COLORS="+strings.Repeat("di=01;34:ln=01;36:", 40), "DATABASE_URL=postgres://app:pw@db/app",
		"GITHUB_TOKEN=ghp_x", "PWD=/work", "TERM=xterm", "LANG=C.UTF-8", "EDITOR=vim", "SHELL=/bin/bash")
	b.ReportAllocs()
	for b.Loop() {
		_ = Build(env, Policy{Inherit: InheritAll})
	}
}
