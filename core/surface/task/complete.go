package task

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// ToolCompleteTask is the tool a Task agent ends its work with.
const ToolCompleteTask = "complete_task"

// completeTask is one agent's complete_task: its schema comes from the
// definition's outputConfig, and the registry validates every call against
// it, so a value that breaks the schema goes back to the model as a tool
// error naming the field, and the model may call again.
type completeTask struct {
	spec   model.ToolSpec
	output string // outputConfig.outputName, or "" for a plain result
	store  *results
}

func newCompleteTask(a *Agent, store *results) (*completeTask, error) {
	props := map[string]any{}
	doc := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	desc := "Call this when your task is done, with your final answer in result. Your work ends with this call; nothing after it is seen."
	c := &completeTask{store: store}
	if o := a.Output; o != nil {
		props[o.OutputName] = o.Schema
		doc["required"] = []string{o.OutputName}
		c.output = o.OutputName
		desc = fmt.Sprintf("Call this to submit your final answer and complete the task. You MUST provide %s in the specified format: %s", o.OutputName, o.Description)
	} else {
		props["result"] = map[string]any{"type": "string", "description": "Your final answer or report."}
	}
	params, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("agent %s: outputConfig.schema: %w", a.Type, err)
	}
	c.spec = model.ToolSpec{Name: ToolCompleteTask, Description: desc, Parameters: params}
	return c, nil
}

func (c *completeTask) Spec() model.ToolSpec { return c.spec }

func (c *completeTask) Run(_ context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return tools.Errorf("complete_task: %v", err)
	}
	var result string
	if c.output != "" {
		result = string(m[c.output])
	} else if raw, ok := m["result"]; ok {
		if err := json.Unmarshal(raw, &result); err != nil {
			return tools.Errorf("complete_task: result must be a string")
		}
	}
	c.store.complete(env.ThreadID, result)
	return tools.Result{Output: "Task completed; your result was handed back.", Summary: "task complete", Final: result}
}

// results keeps each agent's run: what complete_task submitted, and
// when the run began (a resume starts a new run).
type results struct {
	mu   sync.Mutex
	runs map[protocol.ThreadID]*run
}

type run struct {
	agent       *Agent
	description string
	startedAt   int64 // unix nanoseconds
	completed   bool
	result      string
	background  bool
}

func newResults() *results { return &results{runs: map[protocol.ThreadID]*run{}} }

// begin records a run. fresh clears an earlier completion (a resumed
// agent); a newly spawned agent may already have completed, before its
// spawn returned, and keeps that.
func (r *results) begin(id protocol.ThreadID, x run, fresh bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev := r.runs[id]; prev != nil && !fresh {
		x.completed, x.result = prev.completed, prev.result
	}
	r.runs[id] = &x
}

func (r *results) complete(id protocol.ThreadID, result string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.runs[id]
	if x == nil {
		x = &run{}
		r.runs[id] = x
	}
	x.completed, x.result = true, result
}

func (r *results) get(id protocol.ThreadID) (run, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.runs[id]
	if x == nil {
		return run{}, false
	}
	return *x, true
}
