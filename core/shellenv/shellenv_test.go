package shellenv

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The variables of issue 21: credentials under names the old patterns
// (*_API_KEY, *_TOKEN, ...) missed, each of which reached commands.
var leaky = []string{
	"PGPASSWORD=pg-secret", "DATABASE_URL=postgres://app:hunter2@db:5432/app", "GH_PAT=ghp_pat",
	"MYSQL_PWD=my-secret", "OPENAI_KEY=sk-other", "KEY=sk-provider-key-value", "CORP_COPY=sk-provider-key-value",
	"AWS_CREDENTIAL_FILE=/c", "SSH_AUTH_SOCK=/run/agent", "PIP_INDEX_URL=https://__token__:pypi-x@pypi.org/simple",
	"github_token=lower", "Db_Pass=mixed",
}

var plain = []string{"PATH=/bin", "HOME=/h", "PWD=/w", "OLDPWD=/o", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
	"EDITOR=vi", "REPO_URL=https://github.com/a/b", "PROXY=http://proxy:3128", "USER=u"}

func TestDefaultsDropEveryCredentialOfIssue21(t *testing.T) {
	p := Policy{SecretValues: []string{"sk-provider-key-value"}}
	got := Build(append(slices.Clone(leaky), plain...), p)
	want := slices.Clone(plain)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

func TestInheritModes(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "SHELL=/bin/bash", "USER=u", "LOGNAME=u", "TMPDIR=/t", "LANG=C", "LC_CTYPE=C",
		"TERM=dumb", "EDITOR=vi", "GOPATH=/g", "API_KEY=x"}
	for _, tc := range []struct {
		name string
		p    Policy
		want []string
	}{
		{"all", Policy{Inherit: InheritAll}, []string{"EDITOR=vi", "GOPATH=/g", "HOME=/h", "LANG=C", "LC_CTYPE=C", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/bash", "TERM=dumb", "TMPDIR=/t", "USER=u"}},
		{"zero value is all", Policy{}, []string{"EDITOR=vi", "GOPATH=/g", "HOME=/h", "LANG=C", "LC_CTYPE=C", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/bash", "TERM=dumb", "TMPDIR=/t", "USER=u"}},
		{"core", Policy{Inherit: InheritCore}, []string{"HOME=/h", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/bash", "TMPDIR=/t", "USER=u"}},
		{"core keeps nothing secret even ignoring defaults, only core names", Policy{Inherit: InheritCore, IgnoreDefaultExcludes: true}, []string{"HOME=/h", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/bash", "TMPDIR=/t", "USER=u"}},
		{"core, locale added back with set", Policy{Inherit: InheritCore, Set: map[string]string{"LANG": "C.UTF-8"}}, []string{"HOME=/h", "LANG=C.UTF-8", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/bash", "TMPDIR=/t", "USER=u"}},
		{"none with set", Policy{Inherit: InheritNone, Set: map[string]string{"ONLY": "yes"}}, []string{"ONLY=yes"}},
		{"all, ignore default excludes", Policy{IgnoreDefaultExcludes: true, Exclude: []string{"*"}, Set: map[string]string{"A": "1"}}, []string{"A=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Build(base, tc.p); !slices.Equal(got, tc.want) {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Codex's order: excludes, then set, then include_only (which filters set
// entries too); patterns any case, `*` and `?` only.
func TestCodexOrder(t *testing.T) {
	base := []string{"PATH=/bin", "FOO=bar", "AWS_REGION=eu", "GITHUB_TOKEN=g", "x[1]=lit"}
	for _, tc := range []struct {
		name string
		p    Policy
		want []string
	}{
		{"include_only filters set", Policy{IncludeOnly: []string{"*path"}, Set: map[string]string{"CI": "1", "PATH": "/x"}}, []string{"PATH=/x"}},
		{"exclude globs any case", Policy{Exclude: []string{"aws_*", "f?o"}}, []string{"PATH=/bin", "x[1]=lit"}},
		{"bracket is literal", Policy{Exclude: []string{"X[1]"}}, []string{"AWS_REGION=eu", "FOO=bar", "PATH=/bin"}},
		{"include_only cannot bring back a default exclude", Policy{IncludeOnly: []string{"GITHUB_*"}}, []string{}},
		{"ignore_default_excludes brings it back", Policy{IgnoreDefaultExcludes: true, IncludeOnly: []string{"GITHUB_*"}}, []string{"GITHUB_TOKEN=g"}},
		{"set brings it back", Policy{Set: map[string]string{"GITHUB_TOKEN": "mine"}, IncludeOnly: []string{"GITHUB_*"}}, []string{"GITHUB_TOKEN=mine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Build(base, tc.p); !slices.Equal(got, tc.want) {
				t.Fatalf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Provider keys go whatever the switches say: by name and by value.
func TestProviderKeysAlwaysDropped(t *testing.T) {
	base := []string{"CORP_LLM=corp-key-1234", "ALIAS=corp-key-1234", "PATH=/bin"}
	p := Policy{IgnoreDefaultExcludes: true, SecretNames: []string{"CORP_LLM"}, SecretValues: []string{"corp-key-1234"}}
	if got := Build(base, p); !slices.Equal(got, []string{"PATH=/bin"}) {
		t.Fatalf("got %q", got)
	}
}

func TestSetPolicyTakesBuiltinKeyValues(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-live-from-env")
	t.Setenv("SOMETHING", "sk-live-from-env")
	t.Setenv("VISIBLE", "yes")
	SetPolicy(Policy{IgnoreDefaultExcludes: true})
	t.Cleanup(func() { current.Store(nil) })
	env := strings.Join(Environ(map[string]string{"EXTRA": "1", "VISIBLE": "over"}), "\n")
	if strings.Contains(env, "sk-live-from-env") || !strings.Contains(env, "EXTRA=1") || !strings.Contains(env, "VISIBLE=over") || strings.Contains(env, "VISIBLE=yes") {
		t.Fatalf("environment:\n%s", env)
	}
	if os.Getenv("PATH") != "" && !strings.Contains(env, "PATH=") {
		t.Fatal("PATH lost")
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		glob, name string
		want       bool
	}{
		{"*KEY*", "openai_key", true}, {"*KEY*", "KEY", true}, {"*_PAT", "GH_PAT", true}, {"*_PAT", "PATH", false},
		{"A?C", "abc", true}, {"A?C", "ac", false}, {"*", "", true}, {"a*b*c", "aXbYbZc", true}, {"a*b", "ab c", false},
	} {
		if got := Match(tc.glob, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.glob, tc.name, got)
		}
	}
}
