package tui

import (
	"github.com/grovecli/grove/protocol"
)

// Claude Code's tools (the claude family, docs/tools.md) shown as grove's
// own: a Bash call as a command card, Write/Edit/MultiEdit as a diff.

// isCommandTool reports whether a call runs a shell command.
func isCommandTool(tc *protocol.ToolCall) bool { return tc.ToolKind() == protocol.ToolKindExec }

// isPatchTool reports whether a call writes files (its arguments show as
// a patch).
func isPatchTool(tc *protocol.ToolCall) bool { return tc.ToolKind() == protocol.ToolKindPatch }
