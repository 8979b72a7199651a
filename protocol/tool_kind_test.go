package protocol

import (
	"encoding/json"
	"testing"
)

// A tool call recorded before calls carried a kind replays with the kind
// its name implies; a recorded kind is kept as it is.
func TestToolCallKindOnDecode(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"type":"tool_call_end","thread_id":"t","tool":{"call_id":"c","name":"exec_command","output":"ok"}}`, "exec"},
		{`{"type":"tool_call_begin","thread_id":"t","tool":{"call_id":"c","name":"Edit"}}`, "patch"},
		{`{"type":"tool_call_begin","thread_id":"t","tool":{"call_id":"c","name":"mcp__docs__search"}}`, "mcp"},
		{`{"type":"tool_call_begin","thread_id":"t","tool":{"call_id":"c","name":"some_new_tool"}}`, "other"},
		{`{"type":"tool_call_begin","thread_id":"t","tool":{"call_id":"c","name":"my_shell","kind":"exec"}}`, "exec"},
	} {
		var ev Event
		if err := json.Unmarshal([]byte(tc.line), &ev); err != nil {
			t.Fatal(err)
		}
		m, err := ev.Msg()
		if err != nil {
			t.Fatal(err)
		}
		var call ToolCall
		switch m := m.(type) {
		case ToolCallBeginMsg:
			call = m.Call
		case ToolCallEndMsg:
			call = m.Call
		}
		if string(call.Kind) != tc.want || string(call.ToolKind()) != tc.want {
			t.Errorf("%s: kind %q, want %q", tc.line, call.Kind, tc.want)
		}
	}
	if k := (ToolCall{Name: "Bash"}).ToolKind(); k != ToolKindExec {
		t.Errorf("a call built without a kind: %q", k)
	}
}
