// Package sessions is seed 003's delegation surface: create_session starts
// a child conversation of a session type (a preset or an
// [agents.profiles.<name>] profile: developer prompt, model, effort) and
// returns its id at once; wait_session returns the child's final message
// (or checks without waiting); cancel_session stops it. Children inherit
// the parent's tools, working directory and sandbox, may start sessions of
// their own, and never ask the user: their approvals follow the
// configured policy, as in grove exec.
package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// Name is the surface's name in agents.surface.
const Name = "sessions"

// Tool names of the surface.
const (
	ToolCreate = "create_session"
	ToolWait   = "wait_session"
	ToolCancel = "cancel_session"
)

// Options configures the surface.
type Options struct {
	// Profiles are the configured session types (agents.profiles); they
	// join, and may replace, the presets.
	Profiles map[string]Profile
}

// Surface is the sessions surface of one engine.
type Surface struct {
	e        engine.Ops
	profiles map[string]Profile
	tools    []tools.Tool

	mu        sync.Mutex
	cancelled map[protocol.ThreadID]bool
}

// Factory returns the engine.SurfaceFactory of the sessions surface.
func Factory(opts Options) engine.SurfaceFactory {
	return func(e engine.Ops) (engine.Surface, error) { return New(e, opts) }
}

// New builds the surface over e.
func New(e engine.Ops, opts Options) (*Surface, error) {
	s := &Surface{e: e, profiles: merged(opts.Profiles), cancelled: map[protocol.ThreadID]bool{}}
	s.tools = []tools.Tool{
		&tool{spec: model.ToolSpec{Name: ToolCreate, Description: s.createDescription(), Parameters: s.createSchema()}, run: s.create, spawns: true},
		&tool{spec: model.ToolSpec{Name: ToolWait, Description: "Wait for a child session to finish and return its final message as result. timeout_ms <= 0 checks without waiting (an error while it is still running).", Parameters: schema.MustObject(waitArgs{})}, run: s.wait},
		&tool{spec: model.ToolSpec{Name: ToolCancel, Description: "Cancel a child session (and the sessions it started). cancelled is true when it was still running.", Parameters: schema.MustObject(cancelArgs{})}, run: s.cancel},
	}
	return s, nil
}

// Name implements engine.Surface.
func (s *Surface) Name() string { return Name }

// Tools implements engine.Surface.
func (s *Surface) Tools() []tools.Tool { return s.tools }

// Instructions is the prompt section on child sessions.
func (s *Surface) Instructions() string {
	return `# Working with child sessions
- Hand a self-contained part of the work to a child session with create_session: pick a session_type and give a prompt with everything the child needs (it does not see this conversation). It returns a session_id at once.
- Collect the child's final message with wait_session; with timeout_ms <= 0 it only checks. Start several children before waiting on any when their parts are independent. cancel_session stops one you no longer need.
- Children cannot ask the user for approvals: give them work they can do within the sandbox.`
}

// createSchema is create_session's parameters with session_type an enum
// of the session types (seed 003: "an enum string"), configured ones
// included.
func (s *Surface) createSchema() json.RawMessage {
	base := schema.MustObject(createArgs{})
	var obj map[string]any
	if err := json.Unmarshal(base, &obj); err != nil {
		return base
	}
	props, _ := obj["properties"].(map[string]any)
	if st, ok := props["session_type"].(map[string]any); ok {
		st["enum"] = names(s.profiles)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return base
	}
	return b
}

func (s *Surface) createDescription() string {
	var b strings.Builder
	b.WriteString("Start a child session (a separate conversation with its own instructions and model, the same tools, working directory and sandbox) on a prompt, and return its session_id at once. Session types:\n")
	for _, n := range names(s.profiles) {
		p := s.profiles[n]
		desc := p.Description
		if desc == "" {
			desc = "(configured profile)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", n, desc)
	}
	return b.String()
}

type createArgs struct {
	SessionType string `json:"session_type" required:"true" jsonschema:"The kind of session (see the list in this tool's description)."`
	Prompt      string `json:"prompt" required:"true" jsonschema:"The child's first message: the whole task."`
}
type waitArgs struct {
	SessionID string `json:"session_id" required:"true" jsonschema:"The session_id create_session returned."`
	// TimeoutMS is seed 003's `timeout_ms: i32`: required, 32 bits.
	TimeoutMS *int32 `json:"timeout_ms" required:"true" jsonschema:"Total time to wait in milliseconds; <= 0 checks without waiting."`
}
type cancelArgs struct {
	SessionID string `json:"session_id" required:"true" jsonschema:"The session to cancel."`
}

type tool struct {
	spec   model.ToolSpec
	run    func(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result
	spawns bool // create_session: each call starts a child session
}

func (t *tool) Spec() model.ToolSpec { return t.spec }

// SpawnsAgent implements tools.Spawner: create_session's max_threads slots
// are settled in call order, as every surface's spawns are.
func (t *tool) SpawnsAgent(json.RawMessage) bool { return t.spawns }

// Kind implements tools.Kinded.
func (t *tool) Kind() protocol.ToolKind { return protocol.ToolKindCollab }
func (t *tool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	return t.run(ctx, env, raw)
}

func decode(name string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: invalid arguments: %w", name, err)
	}
	return nil
}

func (s *Surface) create(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a createArgs
	if err := decode(ToolCreate, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	typ := strings.ToLower(strings.TrimSpace(a.SessionType))
	p, ok := s.profiles[typ]
	if !ok {
		return tools.Errorf("create_session: unknown session_type %q; valid types: %s", a.SessionType, strings.Join(names(s.profiles), ", "))
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return tools.Errorf("create_session: prompt is empty; give the child its task")
	}
	id, err := s.e.SpawnChild(ctx, engine.ChildSpec{
		Caller: env.ThreadID, CallID: env.CallID, Prompt: a.Prompt,
		AgentType: typ, Description: a.Prompt, Note: engine.NormalizeNote(a.Prompt),
		Model: p.Model, Effort: p.Effort, Instructions: p.Instructions,
		Surface: Name, NonInteractive: true,
		// Seed 003: the session id is a UUID v4; the parent hears when the
		// child completes.
		NewID:    func() protocol.ThreadID { return protocol.ThreadID(uuid.NewString()) },
		Describe: describe,
	})
	var lim *engine.MaxThreadsError
	switch {
	case errors.As(err, &lim):
		// This surface's way to a free slot: its own tools, not another surface's.
		return tools.Errorf("create_session: agent thread limit reached (max %d): %d sub-agents are running or pending (agents.max_threads); wait_session for one to finish, or cancel_session one you no longer need", lim.Max, lim.Active)
	case err != nil:
		return tools.Errorf("create_session: %v", err)
	}
	modelName := p.Model
	if info, ok := s.e.Info(id); ok {
		modelName = info.Model
	}
	_ = s.e.Announce(env.ThreadID, id, fmt.Sprintf("spawned child session %s with model %s", id, modelName))
	return jsonResult(map[string]any{"session_id": id}, false, fmt.Sprintf("%s session %s (%s)", typ, id.Short(), modelName), id)
}

// describe is the parent's background message for a child session's
// status: seed 003's "child session {id} completed" (its create and cancel
// messages are announced by the tools themselves); other statuses keep the
// engine's wording.
func describe(id protocol.ThreadID, st protocol.AgentStatus) string {
	if st.Kind == protocol.StatusCompleted {
		return fmt.Sprintf("child session %s completed", id)
	}
	return ""
}

// owned checks that id names a child session of the caller.
func (s *Surface) owned(env *tools.Env, raw string) (protocol.ThreadID, error) {
	id := protocol.ThreadID(strings.TrimSpace(raw))
	if id == "" {
		return "", fmt.Errorf("session_id is empty")
	}
	if id == env.ThreadID || !s.e.IsChildOf(env.ThreadID, id) {
		return "", fmt.Errorf("unknown session_id %s (not a session this agent started)", id)
	}
	return id, nil
}

func (s *Surface) wait(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a waitArgs
	if err := decode(ToolWait, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	if a.TimeoutMS == nil {
		// Seed 003: `timeout_ms: i32` is no Option; serde's word for it.
		return tools.Errorf("%s: invalid arguments: missing field `timeout_ms`", ToolWait)
	}
	timeoutMS := *a.TimeoutMS
	id, err := s.owned(env, a.SessionID)
	if err != nil {
		return tools.Errorf("wait_session: %v", err)
	}
	if timeoutMS > 0 {
		timeout := time.Duration(timeoutMS) * time.Millisecond
		_, timedOut, err := s.e.WaitFinal(ctx, id, timeout)
		if err != nil {
			return tools.Errorf("wait_session interrupted: %v", err)
		}
		if timedOut {
			return tools.Errorf("session %s did not complete within %dms", id, timeoutMS)
		}
	}
	rep, _ := s.e.Report(id)
	st := rep.Status
	switch {
	case st.IsActive():
		return tools.Errorf("session %s has not completed yet (timeout_ms <= 0 checks without waiting)", id)
	case st.Kind == protocol.StatusCompleted:
		return jsonResult(map[string]any{"result": st.Message}, false, fmt.Sprintf("session %s completed", id.Short()), id)
	case st.Kind == protocol.StatusErrored:
		return tools.Errorf("%s", st.Message)
	case s.wasCancelled(id):
		return tools.Errorf("session %s was cancelled", id)
	case st.Kind == protocol.StatusInterrupted:
		return tools.Errorf("session %s was interrupted before it completed", id)
	case st.Kind == protocol.StatusShutdown && rep.LastMessage != "":
		return jsonResult(map[string]any{"result": rep.LastMessage}, false, fmt.Sprintf("session %s (closed)", id.Short()), id)
	}
	return tools.Errorf("session %s ended without a result (%s)", id, st.Kind)
}

func (s *Surface) wasCancelled(id protocol.ThreadID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled[id]
}

func (s *Surface) cancel(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a cancelArgs
	if err := decode(ToolCancel, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := s.owned(env, a.SessionID)
	if err != nil {
		return tools.Errorf("cancel_session: %v", err)
	}
	rep, _ := s.e.Report(id)
	if !rep.Status.IsActive() {
		return jsonResult(map[string]any{"cancelled": false}, false, fmt.Sprintf("session %s had already ended", id.Short()), id)
	}
	s.mu.Lock()
	s.cancelled[id] = true
	s.mu.Unlock()
	if err := s.e.Interrupt(env.ThreadID, id); err != nil {
		return tools.Errorf("cancel_session: %v", err)
	}
	// The stop is settled before the call returns: a wait that follows
	// sees it cancelled.
	if _, _, err := s.e.WaitFinal(context.WithoutCancel(ctx), id, 10*time.Second); err != nil {
		return tools.Errorf("cancel_session: %v", err)
	}
	_ = s.e.Announce(env.ThreadID, id, fmt.Sprintf("child session %s cancelled", id))
	return jsonResult(map[string]any{"cancelled": true}, false, fmt.Sprintf("cancelled session %s", id.Short()), id)
}

func jsonResult(v any, isError bool, summary string, ids ...protocol.ThreadID) tools.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Errorf("encode result: %v", err)
	}
	return tools.Result{Output: string(b), IsError: isError, Summary: summary, AgentIDs: ids}
}
