package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

type updatePlan struct{}

// NewUpdatePlan returns the update_plan tool.
func NewUpdatePlan() Tool { return updatePlan{} }

func (updatePlan) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "update_plan", Description: "Record or update your step-by-step plan; the user sees it as a checklist. Keep at most one step in_progress.", Parameters: json.RawMessage(`{"type":"object","properties":{
"explanation":{"type":"string"},
"plan":{"type":"array","items":{"type":"object","properties":{"step":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["step","status"],"additionalProperties":false}}
},"required":["plan"],"additionalProperties":false}`)}
}

func (updatePlan) Run(_ context.Context, env *Env, raw json.RawMessage) Result {
	var p protocol.Plan
	if err := decode("update_plan", raw, &p); err != nil {
		return Errorf("%v", err)
	}
	inProgress := 0
	done := 0
	for _, s := range p.Steps {
		switch s.Status {
		case "in_progress":
			inProgress++
		case "completed":
			done++
		}
	}
	if inProgress > 1 {
		return Errorf("update_plan: %d steps are in_progress; keep at most one in_progress at a time", inProgress)
	}
	if env != nil && env.Emit != nil {
		plan := p
		env.Emit(protocol.Event{Type: protocol.EventPlanUpdated, Plan: &plan})
	}
	return Result{Output: "Plan updated", Plan: &p, Summary: fmt.Sprintf("plan: %d/%d done", done, len(p.Steps))}
}
