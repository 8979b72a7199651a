package task

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/templates"
)

// complete_task's result is seed 004 §3.4.2's extract_complete_task_output:
// serde_json::to_string_pretty of the named output (outputConfig) or of
// the whole arguments. The wants are what serde_json prints (sorted keys,
// two-space indent, no HTML escaping).
func TestCompleteTaskResultIsTheSeedsPrettyJSON(t *testing.T) {
	report := &templates.OutputConfig{OutputName: "report", Description: "d", Schema: map[string]any{"type": "object"}}
	cases := []struct {
		name   string
		output *templates.OutputConfig
		args   string
		want   string
	}{
		{"no args", nil, `{}`, `{}`},
		{"result", nil, `{"result":"done"}`, "{\n  \"result\": \"done\"\n}"},
		{"html and unicode", nil, `{"result":"a<b & ü"}`, "{\n  \"result\": \"a<b & ü\"\n}"},
		{"named output", report, `{"report":{"z":1,"a":[true,null],"m":{}}}`, "{\n  \"a\": [\n    true,\n    null\n  ],\n  \"m\": {},\n  \"z\": 1\n}"},
		{"named output string", &templates.OutputConfig{OutputName: "answer", Schema: map[string]any{"type": "string"}}, `{"answer":"42"}`, `"42"`},
		{"numbers keep their digits", nil, `{"n":2.50,"m":-3}`, "{\n  \"m\": -3,\n  \"n\": 2.50\n}"},
	}
	for _, tc := range cases {
		store := newResults()
		c, err := newCompleteTask(&Agent{Type: "t", Output: tc.output}, store)
		if err != nil {
			t.Fatal(err)
		}
		res := c.Run(context.Background(), &tools.Env{ThreadID: "agent-1"}, json.RawMessage(tc.args))
		if res.IsError || res.Final != tc.want {
			t.Errorf("%s: Final = %q (error %v), want %q", tc.name, res.Final, res.IsError, tc.want)
		}
		if r, _ := store.get("agent-1"); r.result != tc.want {
			t.Errorf("%s: stored %q", tc.name, r.result)
		}
	}
}

// The tool's descriptions are seed 004 §3.5's.
func TestCompleteTaskDescriptions(t *testing.T) {
	plain, _ := newCompleteTask(&Agent{Type: "t"}, newResults())
	if got := plain.Spec().Description; got != "Call this tool to signal that you have completed your task." {
		t.Errorf("plain description = %q", got)
	}
	typed, _ := newCompleteTask(&Agent{Type: "t", Output: &templates.OutputConfig{OutputName: "r", Schema: map[string]any{}}}, newResults())
	if got := typed.Spec().Description; got != "Call this tool to submit your final answer and complete the task. You MUST provide the required output in the specified format." {
		t.Errorf("typed description = %q", got)
	}
}
