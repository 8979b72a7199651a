package hooks

// Event is a hook event name as written in hooks files ("PreToolUse").
type Event string

// The events grove fires (Codex's set).
const (
	SessionStart      Event = "SessionStart"
	UserPromptSubmit  Event = "UserPromptSubmit"
	PreToolUse        Event = "PreToolUse"
	PermissionRequest Event = "PermissionRequest"
	PostToolUse       Event = "PostToolUse"
	PreCompact        Event = "PreCompact"
	PostCompact       Event = "PostCompact"
	SubagentStart     Event = "SubagentStart"
	SubagentStop      Event = "SubagentStop"
	Stop              Event = "Stop"
)

// Events lists every event in Codex's order.
var Events = []Event{PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact, SessionStart, UserPromptSubmit, SubagentStart, SubagentStop, Stop}

// label is the snake_case name Codex uses in trust keys
// ("<file>:pre_tool_use:0:0") and hashes.
func (e Event) label() string {
	switch e {
	case PreToolUse:
		return "pre_tool_use"
	case PermissionRequest:
		return "permission_request"
	case PostToolUse:
		return "post_tool_use"
	case PreCompact:
		return "pre_compact"
	case PostCompact:
		return "post_compact"
	case SessionStart:
		return "session_start"
	case UserPromptSubmit:
		return "user_prompt_submit"
	case SubagentStart:
		return "subagent_start"
	case SubagentStop:
		return "subagent_stop"
	case Stop:
		return "stop"
	}
	return ""
}

// usesMatcher reports whether a group's matcher filters this event. Tool
// events match the tool name, SessionStart its source (startup, resume),
// sub-agent events the agent type; the others ignore a matcher (Codex
// drops it, so it is not part of the hash either).
func (e Event) usesMatcher() bool {
	switch e {
	case PreToolUse, PermissionRequest, PostToolUse, SessionStart, SubagentStart, SubagentStop:
		return true
	}
	return false
}

func knownEvent(name string) (Event, bool) {
	for _, e := range Events {
		if string(e) == name {
			return e, true
		}
	}
	return "", false
}
