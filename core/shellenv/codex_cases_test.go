package shellenv

import (
	"slices"
	"strings"
	"testing"
)

// The cases of Codex's exec_env.rs tests (codex-rs/core/src/exec_env.rs,
// mod tests), with one difference: Codex's ShellEnvironmentPolicy default
// is ignore_default_excludes = true (nothing dropped by name), grove's
// zero value drops the default secret patterns, so the cases that keep
// API_KEY say IgnoreDefaultExcludes explicitly.
func TestCodexExecEnvCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars []string
		p    Policy
		want []string
	}{
		// test_core_inherit_defaults_keep_sensitive_vars (Codex's default: all, defaults ignored)
		{"inherit all, default excludes ignored", []string{"PATH=/usr/bin", "HOME=/home/user", "API_KEY=secret", "SECRET_TOKEN=t"},
			Policy{Inherit: InheritAll, IgnoreDefaultExcludes: true}, []string{"API_KEY=secret", "HOME=/home/user", "PATH=/usr/bin", "SECRET_TOKEN=t"}},
		// test_core_inherit_with_default_excludes_enabled
		{"default excludes enabled", []string{"PATH=/usr/bin", "HOME=/home/user", "API_KEY=secret", "SECRET_TOKEN=t"},
			Policy{Inherit: InheritAll}, []string{"HOME=/home/user", "PATH=/usr/bin"}},
		// test_include_only
		{"include_only *PATH", []string{"PATH=/usr/bin", "FOO=bar"},
			Policy{IgnoreDefaultExcludes: true, IncludeOnly: []string{"*PATH"}}, []string{"PATH=/usr/bin"}},
		// test_set_overrides
		{"set adds", []string{"PATH=/usr/bin"},
			Policy{IgnoreDefaultExcludes: true, Set: map[string]string{"NEW_VAR": "42"}}, []string{"NEW_VAR=42", "PATH=/usr/bin"}},
		// test_inherit_all
		{"inherit all keeps everything", []string{"PATH=/usr/bin", "FOO=bar"},
			Policy{Inherit: InheritAll, IgnoreDefaultExcludes: true}, []string{"FOO=bar", "PATH=/usr/bin"}},
		// test_inherit_all_with_default_excludes
		{"inherit all with default excludes", []string{"PATH=/usr/bin", "API_KEY=secret"},
			Policy{Inherit: InheritAll}, []string{"PATH=/usr/bin"}},
		// test_inherit_none
		{"inherit none with set", []string{"PATH=/usr/bin", "HOME=/home"},
			Policy{Inherit: InheritNone, IgnoreDefaultExcludes: true, Set: map[string]string{"ONLY_VAR": "yes"}}, []string{"ONLY_VAR=yes"}},
		// CORE_VARS, compared case-sensitively off Windows
		{"core is Codex's nine names, exact case", []string{"HOME=/h", "LOGNAME=l", "PATH=/p", "SHELL=/s", "USER=u", "USERNAME=un", "TMPDIR=/t", "TEMP=/te", "TMP=/tm", "Path=/x", "LANG=C", "LC_ALL=C", "TERM=xterm", "EDITOR=vi"},
			Policy{Inherit: InheritCore, IgnoreDefaultExcludes: true}, []string{"HOME=/h", "LOGNAME=l", "PATH=/p", "SHELL=/s", "TEMP=/te", "TMP=/tm", "TMPDIR=/t", "USER=u", "USERNAME=un"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Build(tc.vars, tc.p); !slices.Equal(got, tc.want) {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Attacks on inherit = "core": a credential hidden in a core name's value,
// and the provider key copied into a core name, do not get through
// (values are judged whatever the name); `exclude` cannot be undone by
// include_only; only the user's own `set` puts a value back.
func TestCoreInheritHidesNoSecret(t *testing.T) {
	base := []string{
		"PATH=/bin", "HOME=/h",
		"USER=postgres://app:hunter2@db/app", // a DSN with a password under a core name
		"TMPDIR=sk-provider-key-value-0000",  // the provider key copied into a core name
		"SHELL=ghp_0123456789abcdef0123456789abcdef0123", "GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk-provider-key-value-0000",
	}
	p := Policy{Inherit: InheritCore, SecretNames: []string{"OPENAI_API_KEY"}, SecretValues: []string{"sk-provider-key-value-0000"}}
	got := strings.Join(Build(base, p), "\n")
	for _, leak := range []string{"hunter2", "sk-provider-key-value", "ghp_"} {
		if strings.Contains(got, leak) {
			t.Fatalf("%s reached the command:\n%s", leak, got)
		}
	}
	if got != "HOME=/h\nPATH=/bin" {
		t.Fatalf("environment:\n%s", got)
	}
	// ignore_default_excludes brings back the named/valued patterns but
	// never the provider key: by name or by value.
	p.IgnoreDefaultExcludes = true
	got = strings.Join(Build(base, p), "\n")
	if strings.Contains(got, "sk-provider-key-value") {
		t.Fatalf("provider key reached the command:\n%s", got)
	}
	// exclude then include_only: include_only cannot bring an excluded
	// core name back (Codex's order: exclude, set, include_only).
	p = Policy{Inherit: InheritCore, Exclude: []string{"HOME"}, IncludeOnly: []string{"*"}}
	if got := Build(base, p); slices.Contains(got, "HOME=/h") {
		t.Fatalf("include_only undid exclude: %q", got)
	}
	// set after exclude: the user's explicit value wins (step 4 after 3).
	p = Policy{Inherit: InheritCore, Exclude: []string{"HOME"}, Set: map[string]string{"HOME": "/mine"}}
	if got := Build(base, p); !slices.Contains(got, "HOME=/mine") {
		t.Fatalf("set did not override: %q", got)
	}
}
