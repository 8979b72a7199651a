package task

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// taskOutputArgs are TaskOutput's parameters (seed 004 §3.6.2).
type taskOutputArgs struct {
	AgentID string `json:"agent_id" required:"true" jsonschema:"The agent ID from async_launched status"`
	Block   *bool  `json:"block" jsonschema:"Wait for completion (default: true)"`
	Timeout *int   `json:"timeout" jsonschema:"Seconds to wait (default: 300)"`
}

// outputDefaultTimeout is TaskOutput's default wait in seconds.
const outputDefaultTimeout = 300

// outputForever stands for the seed's wait on a negative timeout (an i32
// cast to u64: centuries); the caller's interrupt still ends it.
const outputForever = 100 * 365 * 24 * time.Hour

type taskOutputTool struct{ s *Surface }

// Kind implements tools.Kinded.
func (t *taskOutputTool) Kind() protocol.ToolKind { return protocol.ToolKindCollab }

func (t *taskOutputTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ToolTaskOutput, Description: "Retrieves results from a background subagent task.", Parameters: schema.MustObject(taskOutputArgs{})}
}

func (t *taskOutputTool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	s := t.s
	var a taskOutputArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Errorf("TaskOutput: invalid arguments: %v", err)
	}
	id := protocol.ThreadID(strings.TrimSpace(a.AgentID))
	block := a.Block == nil || *a.Block
	timeout := time.Duration(outputDefaultTimeout) * time.Second
	if a.Timeout != nil {
		timeout = time.Duration(*a.Timeout) * time.Second
		if *a.Timeout < 0 {
			timeout = outputForever
		}
	}
	// Seed 004 §3.6.2: only background tasks are in the store (a
	// synchronous Task already returned its result), and only the
	// caller's own: a sibling's results are not its own.
	r, known := s.results.get(id)
	if !known || !r.background || !s.e.IsChildOf(env.ThreadID, id) || id == env.ThreadID {
		return jsonResult(map[string]any{"status": "not_found", "message": "No task found with that agent_id"}, true, "no task "+id.Short())
	}
	if block {
		if _, _, err := s.e.WaitFinal(ctx, id, timeout); err != nil {
			return tools.Errorf("TaskOutput interrupted: %v", err)
		}
	}
	rep, _ := s.e.Report(id)
	if rep.Status.IsActive() {
		// The seed prints BackgroundTaskStatus::Running with {:?}.
		return jsonResult(map[string]any{"status": "Running", "message": "Task still running or timed out waiting"}, true, "still running "+id.Short())
	}
	o := s.outcome(id)
	out := map[string]any{"status": o.Status, "result": o.Result, "turns_used": o.Turns, "duration_seconds": durationSeconds(o.Duration)}
	return jsonResult(out, o.Status != StatusGoal, fmt.Sprintf("%s → %s", id.Short(), o.Status), id)
}
