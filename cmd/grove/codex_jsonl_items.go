package main

import (
	"encoding/json"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// collabTools are grove's seed-000 tools that Codex reports as
// collab_tool_call items (exec_events.rs CollabTool).
var collabTools = map[string]bool{"spawn_agent": true, "send_input": true, "wait": true, "close_agent": true}

// toolBegin starts the item of a tool call: a command, an MCP call or a
// collab call. A patch is reported once, completed (as Codex does); other
// grove tools (read_file, list_dir, ...) have no Codex item.
func (c *codexJSONL) toolBegin(call protocol.ToolCall) {
	kind := call.ToolKind()
	switch {
	case kind == protocol.ToolKindExec:
		var a struct {
			Cmd     string `json:"cmd"`
			Command string `json:"command"` // Claude's Bash
		}
		_ = json.Unmarshal([]byte(call.Arguments), &a)
		if a.Cmd == "" {
			a.Cmd = a.Command
		}
		it := &codexCommandItem{ID: c.itemID(), Type: "command_execution", Command: a.Cmd, Status: "in_progress"}
		c.calls[call.CallID] = it
		c.emit(codexEvent{Type: "item.started", Item: *it})
	case kind == protocol.ToolKindMCP:
		server, tool := splitMCPName(call.Name)
		it := &codexMCPItem{ID: c.itemID(), Type: "mcp_tool_call", Server: server, Tool: tool, Arguments: jsonOrNull(call.Arguments), Status: "in_progress"}
		c.calls[call.CallID] = it
		c.emit(codexEvent{Type: "item.started", Item: *it})
	case kind == protocol.ToolKindCollab && collabTools[call.Name]:
		var a struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal([]byte(call.Arguments), &a)
		it := &codexCollabItem{ID: c.itemID(), Type: "collab_tool_call", Tool: call.Name, SenderThreadID: string(c.root),
			ReceiverThreadIDs: threadIDs(call.AgentIDs), AgentsStates: map[string]codexAgentState{}, Status: "in_progress"}
		if a.Message != "" {
			it.Prompt = &a.Message
		}
		c.calls[call.CallID] = it
		c.emit(codexEvent{Type: "item.started", Item: *it})
	}
}

// toolEnd completes the call's item.
func (c *codexJSONL) toolEnd(call protocol.ToolCall) {
	started := c.calls[call.CallID]
	delete(c.calls, call.CallID)
	switch it := started.(type) {
	case *codexCommandItem:
		it.AggregatedOutput, it.ExitCode = commandOutput(call), call.ExitCode
		switch {
		case c.declined[call.CallID]:
			it.Status = "declined"
		case call.IsError || (call.ExitCode != nil && *call.ExitCode != 0):
			it.Status = "failed"
		default:
			it.Status = "completed"
		}
		c.emit(codexEvent{Type: "item.completed", Item: *it})
	case *codexMCPItem:
		if call.IsError {
			it.Status, it.Error = "failed", &codexError{Message: call.Output}
		} else {
			// No text is no content block, as Codex prints an empty result.
			content := []json.RawMessage{}
			if call.Output != "" {
				text, _ := json.Marshal(map[string]string{"type": "text", "text": call.Output})
				content = append(content, text)
			}
			it.Status, it.Result = "completed", &codexMCPResult{Content: content, StructuredContent: json.RawMessage("null")}
		}
		c.emit(codexEvent{Type: "item.completed", Item: *it})
	case *codexCollabItem:
		it.Status = "completed"
		if call.IsError {
			it.Status = "failed"
		}
		if len(it.ReceiverThreadIDs) == 0 {
			it.ReceiverThreadIDs = threadIDs(call.AgentIDs)
		}
		c.emit(codexEvent{Type: "item.completed", Item: *it})
	case nil:
		if call.ToolKind() == protocol.ToolKindPatch {
			c.patch(call)
		}
	}
}

// patch reports a file-writing call (apply_patch, Claude's Write/Edit)
// as one completed file_change item, its files read from the patch's
// headers.
func (c *codexJSONL) patch(call protocol.ToolCall) {
	it := codexFileChangeItem{ID: c.itemID(), Type: "file_change", Changes: []codexFileChange{}, Status: "completed"}
	if call.IsError {
		it.Status = "failed"
	}
	for _, line := range strings.Split(call.Patch(), "\n") {
		for prefix, kind := range map[string]string{"*** Add File: ": "add", "*** Delete File: ": "delete", "*** Update File: ": "update"} {
			if p, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), prefix); ok {
				it.Changes = append(it.Changes, codexFileChange{Path: strings.TrimSpace(p), Kind: kind})
			}
		}
	}
	c.emit(codexEvent{Type: "item.completed", Item: it})
}

// plan reports update_plan as the turn's todo_list: started, then updated.
func (c *codexJSONL) plan(p protocol.Plan) {
	items := make([]codexTodo, 0, len(p.Steps))
	for _, s := range p.Steps {
		items = append(items, codexTodo{Text: s.Step, Completed: s.Status == "completed"})
	}
	if c.todo != nil {
		c.todo.Items = items
		c.emit(codexEvent{Type: "item.updated", Item: *c.todo})
		return
	}
	c.todo = &codexTodoItem{ID: c.itemID(), Type: "todo_list", Items: items}
	c.emit(codexEvent{Type: "item.started", Item: *c.todo})
}

// splitMCPName reads mcp__<server>__<tool>.
func splitMCPName(name string) (server, tool string) {
	rest := strings.TrimPrefix(name, "mcp__")
	server, tool, ok := strings.Cut(rest, "__")
	if !ok {
		return "", rest
	}
	return server, tool
}

func jsonOrNull(s string) json.RawMessage {
	if json.Valid([]byte(s)) && strings.TrimSpace(s) != "" {
		return json.RawMessage(s)
	}
	return json.RawMessage("null")
}

func threadIDs(ids []protocol.ThreadID) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, string(id))
	}
	return out
}

// commandOutput is what Codex shows as a command's aggregated_output: the
// command's own output, not the wrapper the model reads.
func commandOutput(call protocol.ToolCall) string {
	if call.CommandOutput != nil {
		return *call.CommandOutput
	}
	return call.Output
}
