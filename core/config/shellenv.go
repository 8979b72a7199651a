package config

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// ShellEnvironmentPolicy is the `[shell_environment_policy]` table (Codex's
// names): which of grove's environment variables commands see.
type ShellEnvironmentPolicy struct {
	// Exclude lists globs (case-insensitive) of names to drop, on top of
	// the default secret patterns.
	Exclude []string `toml:"exclude"`
	// IncludeOnly, when set, keeps only the names matching one of its globs.
	IncludeOnly []string `toml:"include_only"`
	// Set adds or overrides variables.
	Set map[string]string `toml:"set"`
	// IgnoreDefaultExcludes keeps names that only the default patterns
	// would drop. Provider keys (env_key) are dropped regardless.
	IgnoreDefaultExcludes bool `toml:"ignore_default_excludes"`
}

// validate rejects globs path.Match cannot read, naming the key.
func (p ShellEnvironmentPolicy) validate() error {
	for key, globs := range map[string][]string{"exclude": p.Exclude, "include_only": p.IncludeOnly} {
		for _, g := range globs {
			if _, err := path.Match(g, ""); err != nil {
				return fmt.Errorf("shell_environment_policy.%s: bad glob %q: %w", key, g, err)
			}
		}
	}
	for k := range p.Set {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("shell_environment_policy.set: bad variable name %q", k)
		}
	}
	return nil
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
