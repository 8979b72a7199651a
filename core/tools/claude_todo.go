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

type claudeTodoWrite struct{}

// todo is one TodoWrite item. Claude Code's current items are content,
// status and activeForm; id and priority are its earlier schema's, still
// in recorded sessions, accepted and ignored.
type todo struct {
	Content    string `json:"content" required:"true" jsonschema:"The imperative form describing what needs to be done (e.g., \"Run tests\")"`
	Status     string `json:"status" required:"true" enum:"pending,in_progress,completed"`
	ActiveForm string `json:"activeForm" jsonschema:"The present continuous form shown during execution (e.g., \"Running tests\")"`
	ID         string `json:"id" jsonschema:"Earlier Claude Code schema; ignored."`
	Priority   string `json:"priority" enum:"high,medium,low" jsonschema:"Earlier Claude Code schema; ignored."`
}

type claudeTodoArgs struct {
	Todos []todo `json:"todos" required:"true" jsonschema:"The updated todo list"`
}

const claudeTodoDesc = `Use this tool to create and manage a structured task list for your current coding session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user. The user sees the list as the session's plan.

Use it for complex multi-step tasks (3 or more distinct steps), when the user provides multiple tasks, and after receiving new instructions; skip it for a single trivial task.

Task states: pending, in_progress (limit to ONE task at a time), completed. Mark tasks complete IMMEDIATELY after finishing; only mark a task completed when it is fully accomplished. Each task has content (imperative: "Run tests") and activeForm (present continuous: "Running tests"). Send the whole list each time.`

func (claudeTodoWrite) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeTodoWrite, Description: claudeTodoDesc, Parameters: schema.MustObject(claudeTodoArgs{})}
}

// claudeTodoAnswer is Claude Code's answer to TodoWrite.
const claudeTodoAnswer = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

// Run shows the list as grove's plan (the same plan_updated event and
// checklist as update_plan).
func (claudeTodoWrite) Run(_ context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeTodoArgs
	if err := decode(ClaudeTodoWrite, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p := protocol.Plan{Steps: make([]protocol.PlanStep, 0, len(a.Todos))}
	done := 0
	for i, t := range a.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return Errorf(`TodoWrite: field "todos/%d/content" is empty; describe the task`, i)
		}
		step := t.Content
		if t.Status == "in_progress" && strings.TrimSpace(t.ActiveForm) != "" {
			step = t.ActiveForm // what Claude Code shows for the running task
		}
		if t.Status == "completed" {
			done++
		}
		p.Steps = append(p.Steps, protocol.PlanStep{Step: step, Status: t.Status})
	}
	if env != nil && env.Emit != nil {
		env.Emit(protocol.NewEvent("", "", protocol.PlanUpdatedMsg{Plan: clonePlan(p)}))
	}
	return Result{Output: claudeTodoAnswer, Plan: &p, Summary: fmt.Sprintf("todos: %d/%d done", done, len(p.Steps))}
}
