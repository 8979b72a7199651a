package task

import (
	"strings"
)

// Environment variables that set every Task agent's model, highest first:
// seed 004 §3.10's CODEX_SUBAGENT_MODEL, then grove's own spelling.
var subagentModelEnv = []string{"CODEX_SUBAGENT_MODEL", "GROVE_SUBAGENT_MODEL"}

// seedAliases is seed 004 §3.10's resolve_model_name: what sonnet, haiku
// and opus mean when agents.model_aliases does not map them.
var seedAliases = map[string]string{"sonnet": "claude-sonnet", "haiku": "claude-haiku", "opus": "claude-opus"}

// resolveModel is seed 004 §3.10's priority chain: the environment
// (CODEX_SUBAGENT_MODEL) first, then the Task call's model, then the
// definition's, then the parent's ("" = inherit). inherit at any level
// passes to the next. The chain's plan-mode rule does not arise: grove has
// no plan permission mode.
func resolveModel(call, definition string, getenv func(string) string, aliases map[string]string) string {
	for _, k := range subagentModelEnv {
		if m, ok := alias(getenv(k), aliases); ok {
			return m
		}
	}
	if m, ok := alias(call, aliases); ok {
		return m
	}
	if m, ok := alias(definition, aliases); ok {
		return m
	}
	return ""
}

// alias maps one level's model: ok=false when it is empty or inherit. The
// aliases go through agents.model_aliases (the provider's real ids), else
// the seed's names; any other name is used as written.
func alias(m string, aliases map[string]string) (string, bool) {
	m = strings.TrimSpace(m)
	switch l := strings.ToLower(m); l {
	case "", "inherit":
		return "", false
	case "sonnet", "opus", "haiku":
		if v := aliases[l]; v != "" {
			return v, true
		}
		return seedAliases[l], true
	}
	return m, true
}
