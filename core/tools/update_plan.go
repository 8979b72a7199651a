package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

type updatePlan struct{}

// NewUpdatePlan returns the update_plan tool.
func NewUpdatePlan() Tool { return updatePlan{} }

func (updatePlan) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "update_plan", Description: "Updates the task plan the user sees as a checklist. Send the whole plan each time: short steps, each pending, in_progress or completed, with at most one step in_progress. Mark a step completed as soon as it is done and the next one in_progress. Use it for multi-step work, not for single simple actions.", Parameters: schema.MustObject(protocol.Plan{})}
}

func (updatePlan) Run(_ context.Context, env *Env, raw json.RawMessage) Result {
	var p protocol.Plan
	if err := decode("update_plan", raw, &p); err != nil {
		return Errorf("%v", err)
	}
	var inProgress []string
	done := 0
	for i, s := range p.Steps {
		if strings.TrimSpace(s.Step) == "" {
			return Errorf(`update_plan: field "plan/%d/step" is empty; describe the step`, i)
		}
		switch s.Status {
		case "in_progress":
			inProgress = append(inProgress, fmt.Sprintf("%q", s.Step))
		case "completed":
			done++
		}
	}
	if len(inProgress) > 1 {
		return Errorf("update_plan: %d steps are in_progress (%s); keep at most one step in_progress", len(inProgress), strings.Join(inProgress, ", "))
	}
	if env != nil && env.Emit != nil {
		plan := clonePlan(p)
		env.Emit(protocol.NewEvent("", "", protocol.PlanUpdatedMsg{Plan: plan}))
	}
	return Result{Output: "Plan updated", Plan: &p, Summary: fmt.Sprintf("plan: %d/%d done", done, len(p.Steps))}
}

// clonePlan copies a plan so the event and the result share no slice.
func clonePlan(p protocol.Plan) protocol.Plan {
	p.Steps = append([]protocol.PlanStep(nil), p.Steps...)
	return p
}
