package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Codex's own unit tests of its exec JSONL mapping,
// codex-rs/exec/tests/event_processor_with_json_output.rs (openai/codex
// 8e238c3e83c130e03a3c2d99ffce343d66be66fe), ported to grove's mapping:
// each case feeds grove's equivalent of Codex's events one step at a
// time and checks the lines that step prints, as Codex's
// collect_thread_events does. Where grove's engine differs the case says
// so; docs/codex-compat.md's `--json` section lists the differences.

// jsonlStep is one collect_thread_events call: grove events in, lines out.
type jsonlStep struct {
	start bool // print thread.started (Codex: SessionConfigured)
	msgs  []protocol.EventMsg
	want  []string
}

type jsonlCase struct {
	codex string // the Codex test ported
	steps []jsonlStep
}

func intp(n int) *int { return &n }

func jsonlCall(id, name, args string) protocol.ToolCall {
	return protocol.ToolCall{CallID: id, Name: name, Arguments: args}
}

func jsonlCmdEnd(id, cmd, out string, code int) protocol.ToolCall {
	return protocol.ToolCall{CallID: id, Name: "exec_command", Arguments: `{"cmd":"` + cmd + `"}`,
		Output: "Exit code: " + out, CommandOutput: &out, ExitCode: intp(code)}
}

const (
	jsonlPatchOK = `{"input":"*** Begin Patch\n*** Add File: a/added.txt\n+hello\n*** Delete File: b/deleted.txt\n` +
		`*** Update File: c/modified.txt\n*** Move to: c/renamed.txt\n@@\n-old\n+new\n*** End Patch"}`
	jsonlPatchOne = `{"input":"*** Begin Patch\n*** Update File: file.txt\n@@\n-old\n+new\n*** End Patch"}`
	jsonlTodoDone = `{"type":"item.completed","item":{"id":"item_0","type":"todo_list","items":[{"text":"step one","completed":true},{"text":"step two","completed":false}]}}`
)

var jsonlCases = []jsonlCase{
	{"session_configured_produces_thread_started_event", []jsonlStep{
		{start: true, want: []string{`{"type":"thread.started","thread_id":"67e55044-10b1-426f-9247-bb680e5fe0c8"}`}},
	}},
	{"task_started_produces_turn_started_event", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.TurnStartedMsg{}}, want: []string{`{"type":"turn.started"}`}},
	}},
	{"web_search_end_emits_item_completed", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.WebSearchMsg{Call: protocol.WebSearchCall{ID: "ws_1", Status: "completed", Action: "search", Query: "rust async await"}}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"web_search","query":"rust async await","action":{"type":"search","query":"rust async await"}}}`}},
	}},
	{"plan_update_emits_todo_list_started_updated_and_completed", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.TurnStartedMsg{}}, want: []string{`{"type":"turn.started"}`}},
		{msgs: []protocol.EventMsg{protocol.PlanUpdatedMsg{Plan: protocol.Plan{Steps: []protocol.PlanStep{{Step: "step one", Status: "pending"}, {Step: "step two", Status: "in_progress"}}}}},
			want: []string{`{"type":"item.started","item":{"id":"item_0","type":"todo_list","items":[{"text":"step one","completed":false},{"text":"step two","completed":false}]}}`}},
		{msgs: []protocol.EventMsg{protocol.PlanUpdatedMsg{Plan: protocol.Plan{Steps: []protocol.PlanStep{{Step: "step one", Status: "completed"}, {Step: "step two", Status: "in_progress"}}}}},
			want: []string{strings.Replace(jsonlTodoDone, "item.completed", "item.updated", 1)}},
		{msgs: []protocol.EventMsg{protocol.TurnCompletedMsg{}},
			want: []string{jsonlTodoDone, `{"type":"turn.completed","usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0}}`}},
	}},
	{"mcp_tool_call_begin_and_end_emit_item_events", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("call-1", "mcp__server_a__tool_x", `{"key":"value"}`)}},
			want: []string{`{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"server_a","tool":"tool_x","arguments":{"key":"value"},"result":null,"error":null,"status":"in_progress"}}`}},
		// Codex's result has no content blocks: grove's call returned no text.
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: jsonlCall("call-1", "mcp__server_a__tool_x", `{"key":"value"}`)}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"server_a","tool":"tool_x","arguments":{"key":"value"},"result":{"content":[],"structured_content":null},"error":null,"status":"completed"}}`}},
	}},
	{"mcp_tool_call_failure_sets_failed_status", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("call-2", "mcp__server_b__tool_y", `{"param":42}`)}},
			want: []string{`{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"server_b","tool":"tool_y","arguments":{"param":42},"result":null,"error":null,"status":"in_progress"}}`}},
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "call-2", Name: "mcp__server_b__tool_y", Output: "tool exploded", IsError: true}}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"server_b","tool":"tool_y","arguments":{"param":42},"result":null,"error":{"message":"tool exploded"},"status":"failed"}}`}},
	}},
	// Differs: grove's MCP call carries the text the model read, so
	// structured_content ({"status":"ok"} in Codex's case) is null.
	{"mcp_tool_call_defaults_arguments_and_preserves_structured_content", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("call-3", "mcp__server_c__tool_z", "")}},
			want: []string{`{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"server_c","tool":"tool_z","arguments":null,"result":null,"error":null,"status":"in_progress"}}`}},
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "call-3", Name: "mcp__server_c__tool_z", Output: "done"}}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"server_c","tool":"tool_z","arguments":null,"result":{"content":[{"type":"text","text":"done"}],"structured_content":null},"error":null,"status":"completed"}}`}},
	}},
	{"plan_update_after_complete_starts_new_todo_list_with_new_id", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.TurnStartedMsg{}, protocol.PlanUpdatedMsg{Plan: protocol.Plan{Steps: []protocol.PlanStep{{Step: "only", Status: "pending"}}}}, protocol.TurnCompletedMsg{}},
			want: []string{`{"type":"turn.started"}`,
				`{"type":"item.started","item":{"id":"item_0","type":"todo_list","items":[{"text":"only","completed":false}]}}`,
				`{"type":"item.completed","item":{"id":"item_0","type":"todo_list","items":[{"text":"only","completed":false}]}}`,
				`{"type":"turn.completed","usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0}}`}},
		{msgs: []protocol.EventMsg{protocol.TurnStartedMsg{}, protocol.PlanUpdatedMsg{Plan: protocol.Plan{Steps: []protocol.PlanStep{{Step: "again", Status: "pending"}}}}},
			want: []string{`{"type":"turn.started"}`, `{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"again","completed":false}]}}`}},
	}},
	// grove streams reasoning as deltas; the item completes when the
	// reasoning ends (Codex: one AgentReasoning event).
	{"agent_reasoning_produces_item_completed_reasoning", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ReasoningDeltaMsg{Delta: "thinking"}, protocol.ReasoningDeltaMsg{Delta: "..."}}},
		{msgs: []protocol.EventMsg{protocol.TokenUsageMsg{}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking..."}}`}},
	}},
	{"agent_message_produces_item_completed_agent_message", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.AgentMessageMsg{Text: "hello"}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hello"}}`}},
	}},
	{"error_event_produces_error", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ErrorMsg{Text: "boom"}}, want: []string{`{"type":"error","message":"boom"}`}},
	}},
	{"warning_event_produces_error_item", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.WarningMsg{Text: "Heads up: long conversations"}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Heads up: long conversations"}}`}},
	}},
	{"stream_error_event_produces_error", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.StreamRetryMsg{Text: "retrying"}}, want: []string{`{"type":"error","message":"retrying"}`}},
	}},
	{"error_followed_by_task_complete_produces_turn_failed", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.TurnStartedMsg{}}, want: []string{`{"type":"turn.started"}`}},
		{msgs: []protocol.EventMsg{protocol.ErrorMsg{Text: "boom"}}, want: []string{`{"type":"error","message":"boom"}`}},
		{msgs: []protocol.EventMsg{protocol.TurnCompletedMsg{}}, want: []string{`{"type":"turn.failed","error":{"message":"boom"}}`}},
	}},
	// Differs: the command is exec_command's cmd as the model wrote it;
	// Codex shell-quotes its argv (bash -lc 'echo hi').
	{"exec_command_end_success_produces_completed_command_item", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("1", "exec_command", `{"cmd":"echo hi"}`)}},
			want: []string{`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"echo hi","aggregated_output":"","exit_code":null,"status":"in_progress"}}`}},
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: jsonlCmdEnd("1", "echo hi", "hi\n", 0)}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"echo hi","aggregated_output":"hi\n","exit_code":0,"status":"completed"}}`}},
	}},
	{"exec_command_end_failure_produces_failed_command_item", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("2", "exec_command", `{"cmd":"exit 1"}`)}},
			want: []string{`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"exit 1","aggregated_output":"","exit_code":null,"status":"in_progress"}}`}},
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: jsonlCmdEnd("2", "exit 1", "", 1)}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"exit 1","aggregated_output":"","exit_code":1,"status":"failed"}}`}},
	}},
	{"exec_command_end_without_begin_is_ignored", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: jsonlCmdEnd("no-begin", "true", "", 0)}}},
	}},
	{"patch_apply_success_produces_item_completed_patchapply", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("call-1", "apply_patch", jsonlPatchOK)}}},
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "call-1", Name: "apply_patch", Arguments: jsonlPatchOK, Output: "applied 3 changes"}}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"file_change","changes":[{"path":"a/added.txt","kind":"add"},{"path":"b/deleted.txt","kind":"delete"},{"path":"c/modified.txt","kind":"update"}],"status":"completed"}}`}},
	}},
	{"patch_apply_failure_produces_item_completed_patchapply_failed", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.ToolCallBeginMsg{Call: jsonlCall("call-2", "apply_patch", jsonlPatchOne)}}},
		{msgs: []protocol.EventMsg{protocol.ToolCallEndMsg{Call: protocol.ToolCall{CallID: "call-2", Name: "apply_patch", Arguments: jsonlPatchOne, Output: "failed to apply", IsError: true}}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"file_change","changes":[{"path":"file.txt","kind":"update"}],"status":"failed"}}`}},
	}},
	{"task_complete_produces_turn_completed_with_usage", []jsonlStep{
		{msgs: []protocol.EventMsg{protocol.TurnStartedMsg{}}, want: []string{`{"type":"turn.started"}`}},
		{msgs: []protocol.EventMsg{protocol.TokenUsageMsg{
			Usage: protocol.TokenUsage{InputTokens: 1, OutputTokens: 1},
			Total: protocol.TokenUsage{InputTokens: 1200, CachedInputTokens: 200, OutputTokens: 345}}}},
		{msgs: []protocol.EventMsg{protocol.AgentMessageMsg{Text: "done"}, protocol.TurnCompletedMsg{LastMessage: "done"}},
			want: []string{`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"done"}}`,
				`{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":345}}`}},
	}},
}

// TestCodexJSONLPorted runs each ported case; every line printed must
// equal Codex's (as JSON values) and have Codex's shape.
func TestCodexJSONLPorted(t *testing.T) {
	root := protocol.ThreadID("67e55044-10b1-426f-9247-bb680e5fe0c8")
	for _, tc := range jsonlCases {
		t.Run(tc.codex, func(t *testing.T) {
			var out bytes.Buffer
			c := newCodexJSONL(&out, root)
			for i, st := range tc.steps {
				out.Reset()
				if st.start {
					c.started()
				}
				for _, m := range st.msgs {
					if err := c.event(protocol.NewEvent(root, "turn-1", m)); err != nil {
						t.Fatal(err)
					}
				}
				got := strings.Split(strings.TrimSpace(out.String()), "\n")
				if out.Len() == 0 {
					got = nil
				}
				if len(got) != len(st.want) {
					t.Fatalf("step %d: %d lines, want %d:\n%s", i, len(got), len(st.want), out.String())
				}
				for j := range got {
					checkCodexShape(t, got[j])
					if !sameJSON(t, got[j], st.want[j]) {
						t.Errorf("step %d line %d:\n got %s\nwant %s", i, j, got[j], st.want[j])
					}
				}
			}
		})
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("got is not JSON: %s", a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("want is not JSON: %s", b)
	}
	return reflect.DeepEqual(x, y)
}
