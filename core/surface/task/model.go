package task

import (
	"fmt"
	"strings"
)

// Environment variables that set every Task agent's model (seed 004
// §3.10 names CODEX_SUBAGENT_MODEL; grove's own spelling wins).
var subagentModelEnv = []string{"GROVE_SUBAGENT_MODEL", "CODEX_SUBAGENT_MODEL"}

// resolveModel applies the resolution chain: the call's model, the
// definition's, the environment's, then the parent's ("" = inherit). The
// aliases sonnet, opus and haiku map through agents.model_aliases at
// every level; inherit passes to the next level.
func resolveModel(call, definition string, getenv func(string) string, aliases map[string]string) (string, error) {
	if m, ok, err := alias(call, aliases); err != nil {
		return "", fmt.Errorf("model: %w", err)
	} else if ok {
		return m, nil
	}
	if m, ok, err := alias(definition, aliases); err == nil && ok {
		return m, nil
	}
	for _, k := range subagentModelEnv {
		if m, ok, err := alias(getenv(k), aliases); err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		} else if ok {
			return m, nil
		}
	}
	return "", nil
}

// alias maps one level's model: ok=false when it is empty or inherit.
func alias(m string, aliases map[string]string) (string, bool, error) {
	m = strings.TrimSpace(m)
	switch l := strings.ToLower(m); l {
	case "", "inherit":
		return "", false, nil
	case "sonnet", "opus", "haiku":
		if v := aliases[l]; v != "" {
			return v, true, nil
		}
		return "", false, fmt.Errorf("model alias %q has no mapping in [agents] model_aliases (set agents.model_aliases.%s, or give a model id)", l, l)
	}
	return m, true, nil
}
