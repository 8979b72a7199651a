package hooks

import (
	"encoding/json"
)

// Context is what every event tells its hooks about where it happened.
type Context struct {
	// SessionID is the thread's id (each agent of the tree is a session).
	SessionID string
	// TurnID is empty for events outside a turn (SessionStart).
	TurnID string
	// TranscriptPath is the thread's rollout file ("" is sent as null).
	TranscriptPath string
	Cwd            string
	Model          string
	// PermissionMode is Claude Code's name for the approval mode
	// ("default" when empty); see PermissionMode.
	PermissionMode string
	// AgentID and AgentType are set when the event fires in a sub-agent.
	AgentID, AgentType string
}

// PermissionMode maps grove's approval policy and sandbox mode to the
// permission_mode value hooks read: never asking with no sandbox is
// "bypassPermissions", everything else "default".
func PermissionMode(approvalPolicy, sandboxMode string) string {
	if approvalPolicy == "never" && sandboxMode == "danger-full-access" {
		return "bypassPermissions"
	}
	return "default"
}

// fields are the stdin fields every event shares, with exactly Codex's
// names: session_id, transcript_path (null when unknown), cwd,
// hook_event_name, model, permission_mode, and turn_id inside a turn;
// agent_id/agent_type inside a sub-agent.
func (c Context) fields(ev Event) map[string]any {
	m := map[string]any{
		"session_id":      c.SessionID,
		"transcript_path": nil,
		"cwd":             c.Cwd,
		"hook_event_name": string(ev),
		"model":           c.Model,
		"permission_mode": c.PermissionMode,
	}
	if c.PermissionMode == "" {
		m["permission_mode"] = "default"
	}
	if c.TranscriptPath != "" {
		m["transcript_path"] = c.TranscriptPath
	}
	if c.TurnID != "" {
		m["turn_id"] = c.TurnID
	}
	if c.AgentID != "" {
		m["agent_id"] = c.AgentID
		m["agent_type"] = c.AgentType
	}
	return m
}

// Tool is a tool call as hooks see it.
type Tool struct {
	// Name is the hook name: Bash for exec_command, as Codex.
	Name string
	// Aliases also select matchers (apply_patch answers to Write, Edit).
	Aliases []string
	// Input is tool_input: {"command": ...} for shell and patch calls,
	// the call's arguments otherwise.
	Input any
	// UseID is the call id (tool_use_id).
	UseID string
}

// ToolFor names a grove tool call the way Codex's hooks see it.
func ToolFor(name, callID string, args json.RawMessage) Tool {
	t := Tool{Name: name, UseID: callID}
	var obj map[string]any
	_ = json.Unmarshal(args, &obj)
	switch name {
	case "exec_command":
		t.Name = "Bash"
		t.Input = map[string]any{"command": stringField(obj, "cmd", "command")}
		return t
	case "apply_patch":
		t.Aliases = []string{"Write", "Edit"}
		t.Input = map[string]any{"command": stringField(obj, "input", "patch")}
		return t
	case "spawn_agent", "Task":
		t.Aliases = []string{"Agent"}
	}
	if obj == nil {
		t.Input = map[string]any{}
		if len(args) > 0 && json.Valid(args) {
			t.Input = json.RawMessage(args)
		}
		return t
	}
	t.Input = obj
	return t
}

func stringField(obj map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := obj[n].(string); ok {
			return s
		}
	}
	return ""
}

// matchInputs are the names a tool's matchers are tried against.
func (t Tool) matchInputs() []string { return append([]string{t.Name}, t.Aliases...) }

// Subagent describes a child agent for SubagentStart/SubagentStop.
type Subagent struct {
	ID, Type, Parent string
	// TranscriptPath is the child's rollout file.
	TranscriptPath string
	// Status and LastMessage are the child's final status ("completed",
	// "errored", "shutdown", "interrupted") and last message (stop only).
	Status, LastMessage string
}

// UpdatedArgs maps a PreToolUse hook's updatedInput back onto the grove
// call's arguments: {"command"} becomes exec_command's cmd or
// apply_patch's input (the call's other arguments kept); any other tool
// takes updatedInput as its arguments. ok is false when it cannot be read.
func UpdatedArgs(name string, args, updated json.RawMessage) (json.RawMessage, bool) {
	var field string
	switch name {
	case "exec_command":
		field = "cmd"
	case "apply_patch":
		field = "input"
	default:
		var obj map[string]any
		if json.Unmarshal(updated, &obj) != nil || obj == nil {
			return nil, false
		}
		return updated, true
	}
	var in struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(updated, &in) != nil || in.Command == nil {
		return nil, false
	}
	obj := map[string]any{}
	_ = json.Unmarshal(args, &obj)
	obj[field] = *in.Command
	out, err := json.Marshal(obj)
	return out, err == nil
}
