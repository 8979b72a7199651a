package tools

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

func TestUpdatePlan(t *testing.T) {
	r := coreRegistry(t)
	for _, tc := range []struct {
		name, args, want string
		isErr            bool
		steps            int
	}{
		{"valid", `{"explanation":"start","plan":[{"step":"read","status":"completed"},{"step":"edit","status":"in_progress"},{"step":"test","status":"pending"}]}`, "Plan updated", false, 3},
		{"empty plan", `{"plan":[]}`, "Plan updated", false, 0},
		{"two in progress", `{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`, `update_plan: 2 steps are in_progress ("a", "b"); keep at most one step in_progress`, true, 0},
		{"bad status", `{"plan":[{"step":"a","status":"done"}]}`, `invalid arguments for update_plan: field "plan/0/status": expected one of "pending", "in_progress", "completed", got "done"`, true, 0},
		{"missing plan", `{"explanation":"x"}`, `invalid arguments for update_plan: field "plan" is required (expected array)`, true, 0},
		{"empty step", `{"plan":[{"step":" ","status":"pending"}]}`, `update_plan: field "plan/0/step" is empty; describe the step`, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			var events []protocol.Event
			env.Emit = func(ev protocol.Event) { events = append(events, ev) }
			res := run(t, r, env, "update_plan", tc.args)
			if res.IsError != tc.isErr || res.Output != tc.want {
				t.Fatalf("got %q (error %v), want %q", res.Output, res.IsError, tc.want)
			}
			if tc.isErr {
				if len(events) != 0 || res.Plan != nil {
					t.Errorf("a rejected plan was published: %+v", events)
				}
				return
			}
			if len(events) != 1 || events[0].Type != protocol.EventPlanUpdated || events[0].Plan == nil || len(events[0].Plan.Steps) != tc.steps {
				t.Fatalf("events %+v", events)
			}
			if res.Plan == nil || len(res.Plan.Steps) != tc.steps {
				t.Fatalf("result plan %+v", res.Plan)
			}
		})
	}
	// No Emit: the plan still comes back in the result.
	env := testEnv(t)
	res := run(t, r, env, "update_plan", `{"explanation":"why","plan":[{"step":"a","status":"pending"}]}`)
	if res.IsError || res.Plan == nil || res.Plan.Explanation != "why" || res.Summary != "plan: 0/1 done" {
		t.Errorf("without Emit: %+v", res)
	}
}
