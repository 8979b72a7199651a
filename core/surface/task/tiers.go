package task

import (
	"slices"

	"github.com/grovecli/grove/core/tools"
)

// Tool tiers of seed 004 §3.2, in both tool sets' names (Codex's and
// Claude Code's, whichever the agent's model gets).
var (
	// alwaysBlocked: no sub-agent delegates again or writes the main
	// agent's plan. (The delegation tools of every surface are hidden from
	// Task agents by the engine, which gives them no surface.)
	alwaysBlocked = []string{ToolTask, ToolTaskOutput, "update_plan", "TodoWrite"}
	// nonBuiltinBlocked: user and project agents run no commands and write
	// no files unless agents.trust_custom_agents is set.
	nonBuiltinBlocked = []string{"exec_command", "apply_patch", "Bash", "BashOutput", "TaskStop", "KillShell", "Write", "Edit", "MultiEdit", "NotebookEdit"}
	// asyncSafe: what a background agent may use (Claude Code's Read,
	// Edit, Grep, Glob, Bash in grove's names).
	asyncSafe = []string{"read_file", "apply_patch", "grep_files", "glob_files", "list_dir", "exec_command", "Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "LS", "Bash", "BashOutput", "TaskStop"}
)

// toolFilter is the engine tool filter of one Task agent run.
func toolFilter(a *Agent, background, trustCustom bool) func(string) bool {
	policy := tools.Policy{Allow: a.Allow, Deny: a.Deny}
	return func(name string) bool {
		if background && !slices.Contains(asyncSafe, name) {
			return false
		}
		if slices.Contains(alwaysBlocked, name) {
			return false
		}
		if !a.Builtin && !trustCustom && slices.Contains(nonBuiltinBlocked, name) {
			return false
		}
		return policy.Allowed(name)
	}
}
