package demo

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// The Task surface's tools (seed 004), named here because the demo cannot
// import core/surface/task (the engine's tests use the demo).
const (
	toolTask         = "Task"
	toolTaskOutput   = "TaskOutput"
	toolCompleteTask = "complete_task"
)

// offers reports whether the request lets the model call tool.
func offers(req model.Request, tool string) bool {
	for _, s := range req.Tools {
		if s.Name == tool {
			return true
		}
	}
	return false
}

// completing turns a sub-agent's final reply into the complete_task call
// that hands it back on the Task surface.
func completing(r model.Response) model.Response {
	if len(r.ToolCalls) > 0 {
		return r
	}
	return model.Response{ToolCalls: []model.ToolCallRequest{call("demo_complete", toolCompleteTask, map[string]any{"result": r.Text})}, Usage: r.Usage}
}

// taskRun is what the demo learned of one Task agent.
type taskRun struct {
	role   string
	id     string
	status string // goal, async_launched, running, …
	result string
}

// taskRoot plays the orchestrator on the Task surface: plan, start the
// explorer in the background and the worker synchronously, collect the
// explorer with TaskOutput, report.
func taskRoot(st Turn, dir string) model.Response {
	n := st.Rounds
	if n == 0 {
		return model.Response{
			Text: "I'll split this in two: an **explorer** surveys the project read-only in the background while a **worker** adds the greeting in `service/`.",
			ToolCalls: []model.ToolCallRequest{
				call("demo_plan_1", "update_plan", map[string]any{"explanation": "Demo plan", "plan": []map[string]string{
					{"step": "Survey the project (explorer, background)", "status": "in_progress"},
					{"step": "Add a farewell greeting in service/ (worker)", "status": "pending"},
					{"step": "Collect the explorer's report", "status": "pending"},
				}}),
				call("demo_task_explorer", toolTask, map[string]any{
					"subagent_type": "explorer", "description": "survey the demo project", "run_in_background": true,
					"prompt": "Survey this project: list its files, read the README and find every Go function. Report what you find with file:line references.",
				}),
				call("demo_task_worker", toolTask, map[string]any{
					"subagent_type": "worker", "description": "add Farewell to service/greet.go",
					"prompt": "In service/greet.go add `func Farewell(name string) string` returning \"goodbye, \" + name, next to Greet. Verify the file afterwards and report the change.",
				}),
			},
			Usage: usage(1200, 200),
		}
	}
	runs := taskRuns(st)
	for _, r := range runs {
		if (r.status == "async_launched" || r.status == "running") && n < 12 {
			return model.Response{ToolCalls: []model.ToolCallRequest{call(fmt.Sprintf("demo_output_%d", n), toolTaskOutput, map[string]any{"agent_id": r.id, "block": true, "timeout": 120})}, Usage: usage(1500, 30)}
		}
	}
	var b strings.Builder
	b.WriteString("## Demo complete\n\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "- **%s** (`%s`): %s — %s\n", r.role, protocol.ThreadID(r.id).Short(), r.status, firstLine(r.result))
	}
	b.WriteString("\nEverything above ran for real in a scratch directory on the Task surface: Task (synchronous and in the background), TaskOutput, complete_task, the sandbox and the agent tree. ")
	if strings.Contains(filepath.Base(dir), "grove-demo-") {
		fmt.Fprintf(&b, "The scratch project was `%s`; grove removes it when it exits (start grove with `--keep-demo-dir` to keep it). ", dir)
	} else if dir != "" {
		fmt.Fprintf(&b, "The demo worked in `%s`. ", dir)
	}
	b.WriteString("Set `OPENAI_API_KEY` (or configure a provider) to put a real model in charge.")
	return model.Response{Text: b.String(), Usage: usage(2000, 160)}
}

// taskRuns reads the Task and TaskOutput results of this turn, in the
// order the agents were started; a TaskOutput result updates its agent.
func taskRuns(st Turn) []*taskRun {
	var runs []*taskRun
	byID := map[string]*taskRun{}
	for _, c := range st.Calls {
		out, ok := st.Outputs[c.CallID]
		if !ok {
			continue
		}
		var args struct {
			SubagentType string `json:"subagent_type"`
			AgentID      string `json:"agent_id"`
		}
		_ = json.Unmarshal([]byte(c.Arguments), &args)
		var res struct {
			Status  string          `json:"status"`
			AgentID string          `json:"agent_id"`
			Result  json.RawMessage `json:"result"`
			Message string          `json:"message"`
		}
		parsed := json.Unmarshal([]byte(out), &res) == nil
		switch c.Name {
		case toolTask:
			r := &taskRun{role: args.SubagentType, id: res.AgentID, status: res.Status, result: resultText(res.Result)}
			if !parsed || res.Status == "" {
				r.status, r.result = "error", out // the call itself failed
			}
			runs = append(runs, r)
			if r.id != "" {
				byID[r.id] = r
			}
		case toolTaskOutput:
			if r := byID[args.AgentID]; r != nil && parsed && res.Status != "" {
				r.status, r.result = res.Status, resultText(res.Result)
				if r.result == "" {
					r.result = res.Message
				}
			}
		}
	}
	return runs
}

// resultText shows a Task result: text as is, a typed value as JSON.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
