// Package tools holds the tool registry, the JSON schemas and the handlers
// of the core tools the model sees (exec_command, apply_patch, read_file,
// list_dir, grep_files, update_plan). The delegation tools live with their
// surfaces (core/surface/*) and register into the same Registry.
package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// Tool is one handler with its schema. Run never panics on bad input: it
// returns a Result with IsError set and a message the model can act on.
type Tool interface {
	Spec() model.ToolSpec
	Run(ctx context.Context, env *Env, args json.RawMessage) Result
}

// Prewarmer is a tool whose first call is slow and can be prepared before
// the model asks for it: exec_command starts its sandbox helper. Prewarm
// returns once that is done; errors are left for the real call to report.
type Prewarmer interface {
	Prewarm(env *Env)
}

// Spawner is a tool whose call starts a sub-agent (when SpawnsAgent says
// so for these arguments), taking one of agents.max_threads' slots: the
// engine settles those slots for one reply's calls in call order while
// they run at once, so the first ones asked for are the ones that run (a
// slot a failed call gives back goes to the reply's next one). Every tool
// that spawns must be one, or its calls race for the slots.
type Spawner interface {
	SpawnsAgent(args json.RawMessage) bool
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
	// Exec is where commands run and files are read and written: this
	// machine or the thread's host. Nil means this machine.
	Exec execenv.Backend
	// Approved is set by the orchestrator when the user approved this call
	// (apply_patch may then write outside the writable roots).
	Approved bool
	// ApprovedPaths are the resolved paths the approval covered (a patch
	// writing outside the roots writes those and no others).
	ApprovedPaths []string
	// Workdir is exec_command's working directory pinned when the call
	// was checked (and shown for approval): the run starts there.
	Workdir *sandbox.DirPin
	// Hooks are the user's hooks around the call (Dispatch runs them).
	Hooks *Hooks
	// Family is the tool family of the calling model: tools answer in its
	// harness's format (Codex's "Exit code: …" for apply_patch).
	Family Family
	// AskUser puts request_user_input's questions to the user; nil means
	// nobody can answer (grove exec, an agent nobody watches).
	AskUser AskUserFunc
	// Sessions keeps the commands still running after their call
	// (exec_command's sessions, Claude's background shells): the engine's
	// manager. Nil means the process-wide one (SessionsFor).
	Sessions *SessionManager
	// NoLoginShell is allow_login_shell = false (ToolConfig.NoLoginShell).
	NoLoginShell bool
}

// fallbackSessions serves callers without an engine (grove mcp, tests).
var fallbackSessions = NewSessionManager(0)

// SessionsFor returns the manager the call's sessions live in.
func (e *Env) SessionsFor() *SessionManager {
	if e == nil || e.Sessions == nil {
		return fallbackSessions
	}
	return e.Sessions
}

// Backend returns where the call's commands and files live.
func (e *Env) Backend() execenv.Backend {
	if e == nil || e.Exec == nil {
		return execenv.NewLocal()
	}
	return e.Exec
}

// Result is what a tool call produced.
type Result struct {
	Output   string // text returned to the model
	IsError  bool
	ExitCode *int
	// CommandOutput is a command's own output, without the wrapper the
	// model reads (exit code, wall time): what Codex's front ends show as
	// aggregated_output. nil for tools that run no command.
	CommandOutput *string
	// ProcessID names the unified exec session the command ran in (write_stdin's
	// session_id): Codex's processId on commandExecution items.
	ProcessID string
	Duration  time.Duration
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
	// SandboxDenied: the command failed on a refusal of its sandbox, as
	// its backend reports it (execenv.SandboxDenied); the orchestrator
	// then offers a run outside the sandbox.
	SandboxDenied bool
	// Images are data: URLs of images the tool returned (an MCP result),
	// given to the model as image inputs with the output.
	Images []string
}

// Errorf builds an error Result.
func Errorf(format string, args ...any) Result {
	return Result{Output: sprintf(format, args...), IsError: true}
}
