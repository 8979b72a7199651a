package engine

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/grovecli/grove/core/sandbox"
)

// basePrompt is what every grove agent is told; the first %s is its "How
// you work" section (howYouWork), the second its surface's section on
// delegation.
const basePrompt = `You are a coding agent running in grove, a terminal tool that runs a tree of agents on the user's machine. You and any sub-agents share the user's workspace. Be precise, safe and helpful.

# How you work
%s


%s# Answering
- End with a concise summary for the user: what changed (files), what you verified, and anything left open. Use Markdown sparingly; reference files as path:line.`

// howYouWork is the "How you work" section for the tools t really has: a
// read-only agent (Explore, Plan, a read_only template) is not told to
// patch, run commands or keep a plan with tools it cannot call.
func (t *Thread) howYouWork() string {
	has := map[string]bool{}
	// The tools the model is offered (its family's set), not every one
	// registered: a Codex model has no read_file to be told about.
	for _, s := range t.toolSet().Offer(t.e.tools.Specs(t.toolAllowed)) {
		has[s.Name] = true
	}
	// The thread's tool set names each kind of tool: Codex's or Claude
	// Code's (see tools.SetForModel).
	claude := has["Read"] || has["Bash"] || has["Edit"]
	exec, patch, plan, search := "exec_command", "apply_patch", "update_plan", "list_dir, read_file and grep_files"
	if claude {
		exec, patch, plan, search = "Bash", "Edit", "TodoWrite", "Glob, Read and Grep"
	}
	runner := "bash -lc"
	if claude {
		runner = "bash"
	}
	can := func(tool string) bool { return has[tool] }
	var lines []string
	switch {
	case claude:
		search += " (or Bash)"
	case !can("read_file") && can("exec_command"):
		search = "exec_command (rg, rg --files, sed -n, ls)"
	case can("exec_command"):
		search += " (or exec_command with rg/ls)"
	}
	if can(patch) {
		lines = append(lines, "- Read before you change: use "+search+" to understand the code first.")
	} else {
		lines = append(lines, "- Investigate with "+search+".")
	}
	switch {
	case can(patch) && claude:
		lines = append(lines, "- Make changes with Edit (Write for new files; Read a file before you change it). Keep edits minimal and focused; match the surrounding style. Never revert changes you did not make.")
	case can(patch):
		lines = append(lines, "- Make changes with apply_patch. Keep edits minimal and focused; match the surrounding style. Never revert changes you did not make.")
	default:
		lines = append(lines, "- You cannot change files: report what you found, and describe any change that is needed instead of making it.")
	}
	if can(exec) {
		lines = append(lines, "- Verify: build and run the relevant tests with "+exec+" when you can, and say what you ran and what happened.")
	}
	if can(plan) {
		lines = append(lines, "- For multi-step work keep a short plan with "+plan+" (one step in_progress at a time) and update it as you go.")
	}
	if can(exec) {
		lines = append(lines,
			"- Commands run through "+runner+" inside a sandbox; if one fails for lack of permission, say so instead of working around the sandbox.",
			"- Do not use git commit, git push or destructive commands (rm -rf, git reset --hard) unless the user asked for them.")
	}
	return strings.Join(lines, "\n")
}

// instructionsFor composes a thread's instructions: base prompt, the user's
// configured instructions, the role template, skills and the environment.
// AGENTS.md files are not among them: they come as a user-role message
// (agentsContext).
func (e *Engine) instructionsFor(t *Thread, rolePrompt string) string {
	var b strings.Builder
	if base := strings.TrimSpace(e.opts.BaseInstructions); base != "" {
		// The user's own base prompt; the tree's tools still need theirs.
		b.WriteString(base)
		if d := strings.TrimSpace(e.delegationSection(t.surface)); d != "" {
			b.WriteString("\n\n" + d)
		}
	} else {
		fmt.Fprintf(&b, basePrompt, t.howYouWork(), e.delegationSection(t.surface))
	}
	if s := strings.TrimSpace(e.opts.Instructions); s != "" {
		b.WriteString("\n\n# User instructions\n")
		b.WriteString(s)
	}
	if s := strings.TrimSpace(e.opts.DeveloperInstructions); s != "" {
		b.WriteString("\n\n# Developer instructions\n")
		b.WriteString(s)
	}
	if s := strings.TrimSpace(rolePrompt); s != "" {
		fmt.Fprintf(&b, "\n\n# Your role: %s\n", t.role())
		b.WriteString(s)
	}
	if s := t.skillsSection(); s != "" {
		b.WriteString("\n\n" + s)
	}
	fmt.Fprintf(&b, "\n\n# Environment\n- working directory: %s\n- sandbox: %s", t.cwd, t.sandbox.Mode)
	if t.sandbox.Mode == "workspace-write" {
		where := "the working directory and the temp dir"
		if len(sandbox.TempRoots(t.sandbox)) == 0 {
			where = "the working directory" // exclude_slash_tmp and no usable $TMPDIR
		}
		b.WriteString(" (you may write inside " + where + "; network is ")
		if t.sandbox.NetworkAccess {
			b.WriteString("allowed)")
		} else {
			b.WriteString("blocked)")
		}
	}
	fmt.Fprintf(&b, "\n- approval policy: %s\n- os: %s/%s\n- date: %s", e.ApprovalPolicy(), runtime.GOOS, runtime.GOARCH, e.now().Format("2006-01-02"))
	if t.parentID != "" {
		fmt.Fprintf(&b, "\n- you are sub-agent %s (depth %d) spawned by %s; your final message is returned to it.", t.id, t.depth, t.parentID)
	}
	return b.String()
}

// Instructor is a Surface that tells its agents how to delegate.
type Instructor interface {
	Instructions() string
}

// delegationSection is the prompt section of a thread's surface: none for
// a thread without one.
func (e *Engine) delegationSection(surface string) string {
	text := ""
	if in, ok := e.surfaces.byName[surface].(Instructor); ok && surface != "" {
		text = in.Instructions()
	}
	if text = strings.TrimSpace(text); text == "" {
		return ""
	}
	return text + "\n\n"
}
