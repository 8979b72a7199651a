// Package shellenv builds the environment every program grove starts on
// the model's or the user's behalf gets: sandboxed and escalated commands,
// MCP stdio servers, hook and notify programs. One function (Environ) so
// that no path forgets the scrubbing: a credential in grove's environment
// never reaches a command, and through its output the model or a rollout.
//
// The algorithm is Codex's (codex-rs/core/src/exec_env.rs, populate_env):
//  1. start from `inherit`: all, core (a fixed list of names) or none;
//  2. unless ignore_default_excludes, drop the default secret patterns;
//  3. drop `exclude`;
//  4. insert `set`;
//  5. if `include_only` is not empty, keep only the names it matches.
//
// Patterns are case-insensitive globs with `*` and `?` only (Codex's
// WildMatchPattern<'*','?'>: `[` is a literal). grove goes further than
// Codex in step 2 (more patterns, URLs with credentials) and adds a step
// Codex lacks: provider keys, by name and by value, are dropped from what
// was inherited whatever ignore_default_excludes says; only an explicit
// `set` entry can put such a value back.
package shellenv

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// Inherit is `shell_environment_policy.inherit`.
type Inherit string

const (
	InheritAll  Inherit = "all"
	InheritCore Inherit = "core"
	InheritNone Inherit = "none"
)

// CoreNames are what inherit = "core" keeps: Codex's CORE_VARS
// (codex-rs/core/src/exec_env.rs, populate_env), compared exactly as on
// Unix (case-sensitive). The locale is not among them: add LANG or LC_ALL
// with `set` when a tool needs it (grove sets TERM=dumb itself).
var CoreNames = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP"}

// DefaultExcludes are dropped unless ignore_default_excludes: Codex's
// three (*KEY*, *SECRET*, *TOKEN*) and the names credentials hide under
// that those miss (PGPASSWORD, MYSQL_PWD, GH_PAT, AWS_CREDENTIAL_FILE,
// SSH_AUTH_SOCK...). PWD and OLDPWD are the shell's, not passwords.
// Issue 31.12 added the names that got through a red-team round:
// SLACK_WEBHOOK_URL, CI_JOB_JWT, KUBE_BEARER, STRIPE_SK, cookies, and git's
// environment-borne config (GIT_CONFIG_VALUE_0 can be an
// http.extraHeader "Authorization: Bearer …"; its key and count go with
// it so git does not fail on a half-removed set).
var DefaultExcludes = []string{
	"*KEY*", "*SECRET*", "*TOKEN*", "*PASS*", "*PWD*", "*CREDENTIAL*", "*AUTH*", "*_PAT",
	"*WEBHOOK*", "*JWT*", "*BEARER*", "*_SK", "*COOKIE*",
	"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_*", "GIT_CONFIG_VALUE_*", "GIT_CONFIG_PARAMETERS",
}

// notSecret are names the default patterns would catch but never hold a
// credential.
var notSecret = []string{"PWD", "OLDPWD"}

// secretValues find a credential by its value, whatever the variable's
// name; dropped with the defaults:
//   - a URL carrying credentials (scheme://user[:pass]@host):
//     DATABASE_URL=postgres://app:hunter2@db/app;
//   - a password parameter in a connection string or URL query:
//     "Server=db;User Id=app;Password=…", jdbc:…?user=app&password=…;
//   - a JSON Web Token (header and payload are base64 of "{"…);
//   - a webhook URL, whose path is the credential (Slack, Discord, Teams);
//   - the prefixes providers give their secret keys (sk_live_, rk_live_,
//     whsec_, xoxb-, ghp_, github_pat_, glpat-, sk-ant-, sk-proj-, npm_,
//     AWS access key ids…).
var secretValues = []struct {
	// hints must occur in the value (lower-cased when fold) before the
	// pattern is tried: most variables (PATH, LS_COLORS) hold none, and
	// an unanchored pattern over a long value is what costs.
	hints []string
	fold  bool
	re    *regexp.Regexp
}{
	{[]string{"://"}, false, regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/?#\s@]+@`)},
	{[]string{"password", "passwd", "pwd"}, true, regexp.MustCompile(`(?i)(^|[?&;\s])(password|passwd|pwd)\s*=\s*[^&;\s]`)},
	{[]string{"eyJ"}, false, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)},
	{[]string{"hooks.slack.com/", "discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "webhook.office.com/", "outlook.office.com/webhook"}, true,
		regexp.MustCompile(`(?i)https?://(hooks\.slack\.com/(services|workflows|triggers)/|(ptb\.|canary\.)?discord(app)?\.com/api/webhooks/|[a-z0-9.-]*\.webhook\.office\.com/|outlook\.office\.com/webhook)`)},
	{[]string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_", "xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xapp-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-ant-", "sk-proj-", "npm_"}, false,
		regexp.MustCompile(`\b(sk_live_|sk_test_|rk_live_|rk_test_|whsec_|xox[abposr]-|xapp-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|sk-ant-|sk-proj-|npm_)[A-Za-z0-9_-]{16,}`)},
	{[]string{"sk-"}, false, regexp.MustCompile(`\bsk-[A-Za-z0-9]{32,}`)},
	{[]string{"AKIA", "ASIA"}, false, regexp.MustCompile(`\bA(KIA|SIA)[0-9A-Z]{16}\b`)},
}

// IsSecretValue reports whether value looks like a credential by itself.
func IsSecretValue(value string) bool {
	lower := ""
	for _, p := range secretValues {
		v := value
		if p.fold {
			if lower == "" {
				lower = strings.ToLower(value)
			}
			v = lower
		}
		if containsAny(v, p.hints) && p.re.MatchString(value) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Policy is the resolved `[shell_environment_policy]` plus grove's own
// credentials.
type Policy struct {
	Inherit               Inherit
	IgnoreDefaultExcludes bool
	Exclude               []string
	Set                   map[string]string
	IncludeOnly           []string
	// SecretNames are always dropped from what is inherited: every
	// provider's env_key and env_http_headers variable.
	SecretNames []string
	// SecretValues drop any inherited variable holding exactly one of
	// them, whatever its name (KEY=sk-..., a copy of the provider key).
	SecretValues []string
}

// Match reports whether name matches the glob (`*`, `?`, any case).
func Match(glob, name string) bool {
	return wildmatch(strings.ToUpper(glob), strings.ToUpper(name))
}

// wildmatch is a glob match with `*` (any run) and `?` (one byte).
func wildmatch(p, s string) bool {
	star, mark := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(p) && (p[i] == '?' || p[i] == s[j]):
			i++
			j++
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case star >= 0:
			i = star + 1
			mark++
			j = mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if Match(g, name) {
			return true
		}
	}
	return false
}

// IsDefaultSecret reports whether the default excludes drop NAME=value.
func IsDefaultSecret(name, value string) bool {
	if slices.Contains(notSecret, name) {
		return false
	}
	return matchAny(DefaultExcludes, name) || IsSecretValue(value)
}

func isCore(name string) bool { return slices.Contains(CoreNames, name) }

// Build applies p to base ("NAME=value" entries, later ones win) and
// returns the result sorted by name.
func Build(base []string, p Policy) []string {
	env := map[string]string{}
	for _, kv := range base {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		switch p.Inherit {
		case InheritNone:
			continue
		case InheritCore:
			if !isCore(name) {
				continue
			}
		}
		if slices.Contains(p.SecretNames, name) || p.isSecretValue(val) {
			continue
		}
		env[name] = val
	}
	for name, val := range env {
		if !p.IgnoreDefaultExcludes && IsDefaultSecret(name, val) {
			delete(env, name)
		} else if matchAny(p.Exclude, name) {
			delete(env, name)
		}
	}
	for name, val := range p.Set {
		env[name] = val
	}
	if len(p.IncludeOnly) > 0 {
		for name := range env {
			if !matchAny(p.IncludeOnly, name) {
				delete(env, name)
			}
		}
	}
	out := make([]string, 0, len(env))
	for name, val := range env {
		out = append(out, name+"="+val)
	}
	sort.Strings(out)
	return out
}

func (p Policy) isSecretValue(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && slices.Contains(p.SecretValues, v)
}

// builtinSecretNames are the built-in providers' keys, dropped even
// before a configuration was loaded (and by tests that load none).
var builtinSecretNames = []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY"}

var current atomic.Pointer[Policy]

// SetPolicy sets the policy for every program started afterwards (called
// once the configuration is loaded). The built-in providers' key names
// and the values they hold now are added to p's secrets.
func SetPolicy(p Policy) {
	p.SecretNames = append(slices.Clone(p.SecretNames), builtinSecretNames...)
	for _, n := range p.SecretNames {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			p.SecretValues = append(p.SecretValues, v)
		}
	}
	current.Store(&p)
}

// Current returns the policy in force (the defaults before SetPolicy).
func Current() Policy {
	if p := current.Load(); p != nil {
		return *p
	}
	p := Policy{Inherit: InheritAll, SecretNames: builtinSecretNames}
	for _, n := range builtinSecretNames {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			p.SecretValues = append(p.SecretValues, v)
		}
	}
	return p
}

// Environ is the environment for a program grove starts: grove's own,
// scrubbed by the current policy, then extra (an MCP server's `env`
// table, a hook's variables) added explicitly, winning over the rest.
func Environ(extra map[string]string) []string {
	return WithExtra(Build(os.Environ(), Current()), extra)
}

// WithExtra returns env with the extra variables set (sorted, replacing
// an inherited entry of the same name).
func WithExtra(env []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; !over {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}
