package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// The engine's refusals name no tool: each surface has its own (Task has
// no close_agent, collab no TaskOutput), so a surface that wants to say
// how to get past a refusal matches these types and words it itself.

// MaxThreadsError refuses a spawn when agents.max_threads sub-agents are
// running or pending. Its text starts as Codex's AgentLimitReached does.
type MaxThreadsError struct {
	Active, Max int
}

// ThreadLimit lets a surface that does not import the engine (collab)
// match the refusal.
func (e *MaxThreadsError) ThreadLimit() (active, max int) { return e.Active, e.Max }

func (e *MaxThreadsError) Error() string {
	return fmt.Sprintf("agent thread limit reached (max %d): %d sub-agents are running or pending (agents.max_threads); a slot frees when one finishes", e.Max, e.Active)
}

// AgentClosingError refuses to resume an agent that is still shutting
// down; asking again in a moment works.
type AgentClosingError struct {
	ID protocol.ThreadID
}

// ClosingAgent lets a surface that does not import the engine match the
// refusal.
func (e *AgentClosingError) ClosingAgent() protocol.ThreadID { return e.ID }

func (e *AgentClosingError) Error() string {
	return fmt.Sprintf("agent %s is shutting down; it can be resumed once it has closed, in a moment", e.ID)
}

// ModelsUpdatingError refuses a spawn that names a model while the
// provider's model list cannot be read; the same spawn can be retried.
// (Seed 000 words it for spawn_agent; the collab surface says so.)
type ModelsUpdatingError struct{}

// ModelsUpdating lets a surface that does not import the engine match it.
func (ModelsUpdatingError) ModelsUpdating() {}

func (ModelsUpdatingError) Error() string {
	return "Models are being updated; try the spawn again in a moment."
}

// WorkdirRefusedError refuses a spawn whose working directory the user
// did not approve, or that changed while they decided. Detail reads after
// the name of the spawning call ("rejected: …", "cancelled while …").
type WorkdirRefusedError struct {
	Detail string
	Err    error
}

// WorkdirRefusal lets a surface that does not import the engine match it
// and put its tool's name in front of Detail.
func (e *WorkdirRefusedError) WorkdirRefusal() string {
	if e.Err != nil {
		return e.Detail + ": " + e.Err.Error()
	}
	return e.Detail
}

func (e *WorkdirRefusedError) Error() string { return "spawn " + e.WorkdirRefusal() }

func (e *WorkdirRefusedError) Unwrap() error { return e.Err }
