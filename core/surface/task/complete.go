package task

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
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
	// Seed 004 §3.5's descriptions. Without an outputConfig the seed's
	// tool takes no parameters; grove adds an optional result string, and
	// the answer is still the seed's: the arguments, pretty-printed.
	desc := "Call this tool to signal that you have completed your task."
	c := &completeTask{store: store}
	if o := a.Output; o != nil {
		props[o.OutputName] = o.Schema
		doc["required"] = []string{o.OutputName}
		c.output = o.OutputName
		desc = "Call this tool to submit your final answer and complete the task. You MUST provide the required output in the specified format."
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

// Kind implements tools.Kinded.
func (c *completeTask) Kind() protocol.ToolKind { return protocol.ToolKindCollab }

// ArgError words an output that breaks the definition's schema as seed
// 004 §3.0's OutputValidationError.
func (c *completeTask) ArgError(err error) string {
	return "Output validation failed: " + strings.TrimPrefix(err.Error(), "invalid arguments for "+ToolCompleteTask+": ")
}

// Run records the agent's result as seed 004's extract_complete_task_output
// does: the named output when the definition has an outputConfig and the
// call carries it, else the whole arguments, pretty-printed JSON either way.
func (c *completeTask) Run(_ context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // numbers keep the digits the model wrote
	if err := dec.Decode(&v); err != nil {
		return tools.Errorf("complete_task: %v", err)
	}
	if m, ok := v.(map[string]any); ok && c.output != "" {
		if out, ok := m[c.output]; ok {
			v = out
		}
	}
	result, err := prettyJSON(v)
	if err != nil {
		return tools.Errorf("complete_task: %v", err)
	}
	c.store.complete(env.ThreadID, result)
	return tools.Result{Output: "Task completed; your result was handed back.", Summary: "task complete", Final: result}
}

// prettyJSON prints v as serde_json::to_string_pretty does: two-space
// indent, object keys sorted (serde_json's default map), no HTML escaping.
func prettyJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
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
