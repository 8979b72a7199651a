package protocol

import (
	"encoding/json"
	"strings"
)

// ToolKind says what a tool call does, whatever the tool set calls it
// (Codex's exec_command and Claude's Bash are both ToolExec). The
// orchestrator sets it on every tool call event from the handler; front
// ends switch on it instead of on tool names.
type ToolKind string

const (
	ToolKindOther    ToolKind = "other"
	ToolKindExec     ToolKind = "exec"    // a command: exec_command, Bash
	ToolKindSession  ToolKind = "session" // a running command's input/output: write_stdin, BashOutput, TaskStop
	ToolKindPatch    ToolKind = "patch"   // writes files: apply_patch, Write, Edit, MultiEdit
	ToolKindRead     ToolKind = "read"    // reads a file: read_file, Read
	ToolKindList     ToolKind = "list"    // lists a directory: list_dir, LS
	ToolKindSearch   ToolKind = "search"  // finds files or text: grep_files, Grep, Glob
	ToolKindPlan     ToolKind = "plan"    // the plan or todo list: update_plan, TodoWrite
	ToolKindCollab   ToolKind = "collab"  // another agent: spawn_agent, wait, Task, …
	ToolKindMCP      ToolKind = "mcp"     // an MCP server's tool (mcp__server__tool)
	ToolKindWeb      ToolKind = "web_search"
	ToolKindImage    ToolKind = "image"    // view_image
	ToolKindQuestion ToolKind = "question" // asks the user: request_user_input, AskUserQuestion
)

// toolKinds are the kinds of the tools grove has offered, by name: what
// a call recorded before events carried a kind was (see ToolKindOf).
var toolKinds = map[string]ToolKind{
	"exec_command": ToolKindExec, "Bash": ToolKindExec,
	"write_stdin": ToolKindSession, "BashOutput": ToolKindSession, "TaskStop": ToolKindSession, "KillShell": ToolKindSession,
	"apply_patch": ToolKindPatch, "Write": ToolKindPatch, "Edit": ToolKindPatch, "MultiEdit": ToolKindPatch, "NotebookEdit": ToolKindPatch,
	"read_file": ToolKindRead, "Read": ToolKindRead,
	"list_dir": ToolKindList, "LS": ToolKindList,
	"grep_files": ToolKindSearch, "Grep": ToolKindSearch, "Glob": ToolKindSearch,
	"update_plan": ToolKindPlan, "TodoWrite": ToolKindPlan,
	"view_image": ToolKindImage, "web_search": ToolKindWeb,
	"request_user_input": ToolKindQuestion, "AskUserQuestion": ToolKindQuestion,
	// The delegation surfaces (core/surface/*).
	"spawn_agent": ToolKindCollab, "send_input": ToolKindCollab, "wait": ToolKindCollab, "resume_agent": ToolKindCollab,
	"close_agent": ToolKindCollab, "list_agents": ToolKindCollab, "list_active_agents": ToolKindCollab, "set_thread_note": ToolKindCollab,
	"Task": ToolKindCollab, "TaskOutput": ToolKindCollab, "complete_task": ToolKindCollab,
	"create_session": ToolKindCollab, "wait_session": ToolKindCollab, "cancel_session": ToolKindCollab,
	"create_subagent": ToolKindCollab, "list_subagents": ToolKindCollab, "check_inbox": ToolKindCollab,
	"reply_to_subagent": ToolKindCollab, "end_subagent": ToolKindCollab, "notify_parent": ToolKindCollab,
}

// ToolKindOf is the kind a tool's name implies: for calls recorded
// without one, and handlers that do not say (tools.Kinded).
func ToolKindOf(name string) ToolKind {
	if k, ok := toolKinds[name]; ok {
		return k
	}
	if strings.HasPrefix(name, "mcp__") {
		return ToolKindMCP
	}
	return ToolKindOther
}

// UnmarshalJSON reads a tool call; one recorded before calls carried a
// kind gets the kind its name implies, so old rollouts replay alike.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	if c.Kind == "" {
		c.Kind = ToolKindOf(c.Name)
	}
	return nil
}

// ToolKind is the call's kind: Kind, or for a call built without one
// (a test's, a front end's own) the kind its name implies.
func (c ToolCall) ToolKind() ToolKind {
	if c.Kind != "" {
		return c.Kind
	}
	return ToolKindOf(c.Name)
}
