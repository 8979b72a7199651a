package engine

import (
	"strings"

	"github.com/grovecli/grove/core/tools"
)

// toolSet is the core tool set the thread's model is offered: the one
// Options.ToolSet forces, else its model family's (Claude Code's tools for
// Claude models, Codex's for the others). It follows the thread's current
// model, so each agent of a mixed tree gets its own family's tools. A
// registry without Claude's tools (a caller's own) always gives Codex's.
func (t *Thread) toolSet() string {
	set := strings.ToLower(strings.TrimSpace(t.e.opts.ToolSet))
	if set != tools.SetCodex && set != tools.SetClaude {
		set = tools.SetForModel(t.model())
	}
	if set == tools.SetClaude {
		if _, ok := t.e.tools.Get(tools.ClaudeRead); !ok {
			return tools.SetCodex
		}
	}
	return set
}
