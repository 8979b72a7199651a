// Package tools holds the tool registry, the JSON schemas and the handlers
// of the core tools the model sees (exec_command, apply_patch, read_file,
// list_dir, grep_files, update_plan). The delegation tools live with their
// surfaces (core/surface/*) and register into the same Registry.
package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Tool is one handler with its schema. Run never panics on bad input: it
// returns a Result with IsError set and a message the model can act on.
type Tool interface {
	Spec() model.ToolSpec
	Run(ctx context.Context, env *Env, args json.RawMessage) Result
}

// Env is what a handler knows of the calling thread.
type Env struct {
	ThreadID       protocol.ThreadID
	TurnID         string
	CallID         string
	Cwd            string
	Sandbox        protocol.SandboxPolicy
	ApprovalPolicy protocol.ApprovalPolicy
	// Approve asks the user (or the headless policy) and blocks until a
	// decision or ctx ends. The engine fills in ID, ThreadID, Chain and
	// remembers approve-for-session decisions. Nil means "no one to ask":
	// treat as denied.
	Approve func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error)
	// Emit publishes an event for this thread (e.g. plan_updated). May be nil.
	Emit func(protocol.Event)
}

// Result is what a tool call produced.
type Result struct {
	Output   string // text returned to the model
	IsError  bool
	ExitCode *int
	Duration time.Duration
	// Summary is a one-line description for the UI ("ran `go test` → exit 0").
	Summary string
	// Plan is set by update_plan.
	Plan *protocol.Plan
	// Abort asks the engine to end the turn (user chose "abort").
	Abort bool
	// AgentIDs lists the threads a collaboration call targeted (status cards).
	AgentIDs []protocol.ThreadID
	// Final, from a tool that ends the agent's turn (complete_task), is what
	// the agent hands back: its final message, not whatever it said before.
	Final string
}

// Errorf builds an error Result.
func Errorf(format string, args ...any) Result {
	return Result{Output: sprintf(format, args...), IsError: true}
}
