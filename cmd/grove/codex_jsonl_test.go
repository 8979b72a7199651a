package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// codexShapes are the fields of each JSONL event and item, as
// codex-rs/exec/src/exec_events.rs (openai/codex
// 08a1f30ca23f51922d1a4a4965b5ab999b64bead) serializes them: serde writes
// every field (an Option as null) and flattens an item's details next to
// its id and type.
var codexShapes = map[string][]string{
	"thread.started":         {"thread_id", "type"},
	"turn.started":           {"type"},
	"turn.completed":         {"type", "usage"},
	"turn.failed":            {"error", "type"},
	"item.started":           {"item", "type"},
	"item.updated":           {"item", "type"},
	"item.completed":         {"item", "type"},
	"error":                  {"message", "type"},
	"usage":                  {"cached_input_tokens", "input_tokens", "output_tokens"},
	"item:agent_message":     {"id", "text", "type"},
	"item:reasoning":         {"id", "text", "type"},
	"item:command_execution": {"aggregated_output", "command", "exit_code", "id", "status", "type"},
	"item:file_change":       {"changes", "id", "status", "type"},
	"item:mcp_tool_call":     {"arguments", "error", "id", "result", "server", "status", "tool", "type"},
	"item:collab_tool_call":  {"agents_states", "id", "prompt", "receiver_thread_ids", "sender_thread_id", "status", "tool", "type"},
	"item:todo_list":         {"id", "items", "type"},
	"item:error":             {"id", "message", "type"},
	"item:web_search":        {"action", "id", "query", "type"},
}

// codexStatuses are the enums of exec_events.rs.
var codexStatuses = map[string][]string{
	"command_execution": {"in_progress", "completed", "failed", "declined"},
	"file_change":       {"in_progress", "completed", "failed"},
	"mcp_tool_call":     {"in_progress", "completed", "failed"},
	"collab_tool_call":  {"in_progress", "completed", "failed"},
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkCodexShape fails t for a line whose fields differ from Codex's.
func checkCodexShape(t *testing.T, line string) {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("not JSON: %s", line)
	}
	typ, _ := ev["type"].(string)
	want, ok := codexShapes[typ]
	if !ok {
		t.Fatalf("event type %q is not Codex's: %s", typ, line)
	}
	if got := keysOf(ev); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s has fields %v, Codex's has %v: %s", typ, got, want, line)
	}
	if u, ok := ev["usage"].(map[string]any); ok && strings.Join(keysOf(u), ",") != strings.Join(codexShapes["usage"], ",") {
		t.Errorf("usage fields %v: %s", keysOf(u), line)
	}
	item, ok := ev["item"].(map[string]any)
	if !ok {
		return
	}
	it, _ := item["type"].(string)
	want, ok = codexShapes["item:"+it]
	if !ok {
		t.Fatalf("item type %q is not Codex's: %s", it, line)
	}
	if got := keysOf(item); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("item %s has fields %v, Codex's has %v: %s", it, got, want, line)
	}
	if st, ok := item["status"].(string); ok && !contains(codexStatuses[it], st) {
		t.Errorf("item %s status %q is not one of Codex's %v", it, st, codexStatuses[it])
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCodexJSONLGolden: one turn with every kind of item, translated to
// Codex's JSONL, matches the golden file, and every line has Codex's shape.
func TestCodexJSONLGolden(t *testing.T) {
	root := protocol.ThreadID("019a0000-0000-7000-8000-000000000001")
	child := protocol.ThreadID("019a0000-0000-7000-8000-000000000002")
	zero, one := 0, 1
	ev := func(m protocol.EventMsg) protocol.Event { return protocol.NewEvent(root, "turn-1", m) }
	call := func(id, name, args string) protocol.ToolCall {
		return protocol.ToolCall{CallID: id, Name: name, Arguments: args}
	}
	events := []protocol.Event{
		ev(protocol.TurnStartedMsg{}),
		ev(protocol.ReasoningDeltaMsg{Delta: "Look at the "}),
		ev(protocol.ReasoningDeltaMsg{Delta: "tests first."}),
		ev(protocol.PlanUpdatedMsg{Plan: protocol.Plan{Steps: []protocol.PlanStep{{Step: "run tests", Status: "in_progress"}, {Step: "fix", Status: "pending"}}}}),
		ev(protocol.ToolCallBeginMsg{Call: call("c1", "exec_command", `{"cmd":"go test ./..."}`)}),
		ev(protocol.ExecOutputDeltaMsg{Call: call("c1", "exec_command", ""), Delta: "FAIL x\n"}),
		ev(protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "c1", Name: "exec_command", Output: "FAIL x\n", ExitCode: &one}}),
		ev(protocol.ToolCallBeginMsg{Call: call("c2", "exec_command", `{"cmd":"rm -rf /"}`)}),
		ev(protocol.ApprovalResolvedMsg{Request: protocol.ApprovalRequest{ID: "a1", CallID: "c2", Kind: "exec"}, Decision: protocol.DecisionDenied}),
		ev(protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "c2", Name: "exec_command", Output: "refused by the user", IsError: true}}),
		ev(protocol.ToolCallBeginMsg{Call: call("c3", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: x.go\n@@\n-a\n+b\n*** Add File: y.go\n+package y\n*** End Patch"}`)}),
		ev(protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "c3", Name: "apply_patch", Arguments: `{"input":"*** Begin Patch\n*** Update File: x.go\n@@\n-a\n+b\n*** Add File: y.go\n+package y\n*** End Patch"}`, Output: "Success"}}),
		ev(protocol.ToolCallBeginMsg{Call: call("c4", "mcp__docs__search", `{"q":"retry"}`)}),
		ev(protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "c4", Name: "mcp__docs__search", Output: "3 hits"}}),
		ev(protocol.ToolCallBeginMsg{Call: protocol.ToolCall{CallID: "c5", Name: "spawn_agent", Arguments: `{"message":"check the docs"}`}}),
		ev(protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "c5", Name: "spawn_agent", Output: `{"agent_id":"x"}`, AgentIDs: []protocol.ThreadID{child}}}),
		protocol.NewEvent(child, "t", protocol.AgentMessageMsg{Text: "a sub-agent's words are not the root's items"}),
		ev(protocol.ToolCallBeginMsg{Call: call("c6", "read_file", `{"path":"x.go"}`)}),
		ev(protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "c6", Name: "read_file", Output: "package x", ExitCode: &zero}}),
		ev(protocol.PlanUpdatedMsg{Plan: protocol.Plan{Steps: []protocol.PlanStep{{Step: "run tests", Status: "completed"}, {Step: "fix", Status: "completed"}}}}),
		ev(protocol.WarningMsg{Text: "reply from openai is incomplete"}),
		ev(protocol.TokenUsageMsg{Total: protocol.TokenUsage{InputTokens: 1200, CachedInputTokens: 800, OutputTokens: 90}}),
		ev(protocol.AgentMessageMsg{Text: "Fixed x.go; tests pass."}),
		ev(protocol.TurnCompletedMsg{LastMessage: "Fixed x.go; tests pass."}),
		// A second turn that fails.
		ev(protocol.TurnStartedMsg{}),
		ev(protocol.ErrorMsg{Text: "401 from openai: invalid key"}),
		ev(protocol.TurnCompletedMsg{}),
	}
	var buf bytes.Buffer
	cj := newCodexJSONL(&buf, root)
	cj.started()
	for _, e := range events {
		if err := cj.event(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := cj.finish(protocol.AgentStatus{Kind: protocol.StatusErrored}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		checkCodexShape(t, line)
	}
	testkit.Golden(t, filepath.Join("testdata", "codex", "turn.jsonl"), buf.Bytes())
}
