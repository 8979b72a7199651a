package config

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/grovecli/grove/core/shellenv"
)

// ShellEnvironmentPolicy is the `[shell_environment_policy]` table (Codex's
// names and semantics, see core/shellenv): which of grove's environment
// variables commands, MCP stdio servers and hooks see.
type ShellEnvironmentPolicy struct {
	// Inherit is where the environment starts: "all" (default), "core"
	// (shellenv.CoreNames) or "none".
	Inherit string `toml:"inherit"`
	// Exclude lists globs (case-insensitive, `*` and `?`) of names to
	// drop, on top of the default secret patterns.
	Exclude []string `toml:"exclude"`
	// IncludeOnly, when set, keeps only the names matching one of its
	// globs (applied last, to `set` entries too, as Codex).
	IncludeOnly []string `toml:"include_only"`
	// Set adds or overrides variables.
	Set map[string]string `toml:"set"`
	// IgnoreDefaultExcludes keeps names that only the default patterns
	// would drop. Provider keys (env_key, and any variable holding a
	// provider key's value) are dropped regardless.
	IgnoreDefaultExcludes bool `toml:"ignore_default_excludes"`
	// ExperimentalUseProfile is read and has nothing to change: in Codex
	// it runs the argv-form `shell` tool through the user's shell with
	// its profile; grove has no argv-form tool, and every command already
	// runs in a shell whose profile allow_login_shell and `login` decide.
	ExperimentalUseProfile bool `toml:"experimental_use_profile"`
}

// validate rejects an unknown inherit value and unusable names in set.
func (p ShellEnvironmentPolicy) validate() error {
	switch shellenv.Inherit(p.Inherit) {
	case "", shellenv.InheritAll, shellenv.InheritCore, shellenv.InheritNone:
	default:
		return fmt.Errorf(`shell_environment_policy.inherit: %q is not one of "all", "core", "none"`, p.Inherit)
	}
	for k := range p.Set {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("shell_environment_policy.set: bad variable name %q", k)
		}
	}
	return nil
}

// ShellEnvPolicy is the policy programs grove starts get, with grove's
// own credentials: every provider's key variables, the values they hold
// now, and secretValues (the resolved API key, wherever it came from).
func (c *Config) ShellEnvPolicy(secretValues ...string) shellenv.Policy {
	p := c.ShellEnvironment
	inherit := shellenv.Inherit(p.Inherit)
	if inherit == "" {
		inherit = shellenv.InheritAll
	}
	out := shellenv.Policy{Inherit: inherit, IgnoreDefaultExcludes: p.IgnoreDefaultExcludes, Exclude: p.Exclude,
		Set: p.Set, IncludeOnly: p.IncludeOnly, SecretNames: c.ProviderEnvKeys()}
	for _, n := range out.SecretNames {
		secretValues = append(secretValues, os.Getenv(n))
	}
	for _, prov := range c.ModelProviders {
		for _, v := range prov.HTTPHeaders {
			// "Bearer <token>": the token alone may be in a variable.
			_, tok, _ := strings.Cut(v, " ")
			secretValues = append(secretValues, v, tok)
		}
	}
	for _, v := range secretValues {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out.SecretValues, v) {
			out.SecretValues = append(out.SecretValues, v)
		}
	}
	return out
}

// ProviderEnvKeys lists the env_key of every provider, built in and
// configured: grove's own credentials, which no command may see.
func (c *Config) ProviderEnvKeys() []string {
	var keys []string
	for _, p := range builtinProviders {
		if p.EnvKey != "" {
			keys = append(keys, p.EnvKey)
		}
	}
	for _, p := range c.ModelProviders {
		if p.EnvKey != "" {
			keys = append(keys, p.EnvKey)
		}
		for _, v := range p.EnvHTTPHeaders {
			keys = append(keys, v) // header values are credentials too
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// AllowLoginShell is Codex's allow_login_shell (default true): whether
// commands may run in the login environment. False refuses exec_command's
// `login: true` with Codex's error, runs every command with `bash -c` in
// grove's own (scrubbed) environment, and never runs the user's profiles.
func (c *Config) AllowLoginShell() bool {
	return c.AllowLoginShellSetting == nil || *c.AllowLoginShellSetting
}
