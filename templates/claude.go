package templates

import (
	"fmt"
	"strings"
)

// claudeTools maps Claude Code tool names to grove's.
var claudeTools = map[string][]string{
	"Read":         {"read_file"},
	"Write":        {"apply_patch"},
	"Edit":         {"apply_patch"},
	"MultiEdit":    {"apply_patch"},
	"NotebookEdit": {"apply_patch"},
	"Bash":         {"exec_command"},
	"Grep":         {"grep_files"},
	"Glob":         {"list_dir", "grep_files"},
	"LS":           {"list_dir"},
	"TodoWrite":    {"update_plan"},
	"Task":         {"spawn_agent", "wait", "send_input", "close_agent", "list_agents", "list_active_agents"},
	"Agent":        {"spawn_agent", "wait", "send_input", "close_agent", "list_agents", "list_active_agents"},
}

var unsupportedClaudeTools = map[string]bool{"WebFetch": true, "WebSearch": true, "BashOutput": true, "KillBash": true, "KillShell": true, "SlashCommand": true, "ExitPlanMode": true}

func mapClaudeTools(path string, names []string, warnings []string) ([]string, []string) {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		// "Bash(git:*)" style restrictions keep the tool, not the restriction.
		base := n
		if i := strings.IndexByte(n, '('); i > 0 {
			base = n[:i]
			warnings = append(warnings, fmt.Sprintf("%s: tool restriction %q is not supported; allowing %s", path, n, base))
		}
		switch {
		case claudeTools[base] != nil:
			for _, g := range claudeTools[base] {
				add(g)
			}
		case unsupportedClaudeTools[base]:
			warnings = append(warnings, fmt.Sprintf("%s: Claude tool %s has no grove equivalent; dropped", path, base))
		case strings.HasPrefix(base, "mcp__"):
			// MCP tools keep Claude Code's names (grove uses the same
			// mcp__<server>__<tool> convention); a bare mcp__<server>
			// means every tool of that server, as in Claude Code.
			if !strings.Contains(strings.TrimPrefix(base, "mcp__"), "__") {
				base += "__*"
			}
			add(base)
		default:
			warnings = append(warnings, fmt.Sprintf("%s: unknown tool %q kept as-is", path, base))
			add(base)
		}
	}
	return out, warnings
}

// mapClaudeModel maps sonnet/opus/haiku through the alias table; inherit
// means the caller's model.
func mapClaudeModel(path, model string, aliases map[string]string, warnings []string) (string, []string) {
	switch m := strings.ToLower(strings.TrimSpace(model)); m {
	case "", "inherit":
		return "", warnings
	case "sonnet", "opus", "haiku":
		if v := aliases[m]; v != "" {
			return v, warnings
		}
		return "", append(warnings, fmt.Sprintf("%s: model alias %q has no mapping in [agents] model_aliases; inheriting the caller's model", path, m))
	}
	return strings.TrimSpace(model), warnings
}
