package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/grovecli/grove/protocol"
)

// The one tool path. Every call a model makes — built-in, Claude-family,
// collaboration/surface, MCP, exec sessions — goes through Dispatch: it
// announces the call (tool_call_begin, with the handler's kind), runs the
// PreToolUse hook, resolves the handler and runs it through the
// orchestrator (policy, schema, approval with the PermissionRequest hook,
// sandbox retry), runs the PostToolUse hook and announces the end. The
// engine only builds the call's Env and Route.

// Call is one tool call as the model made it, its arguments in function
// form (a freeform call's text wrapped, see protocol.WrapCustomInput).
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
	// Kind is the handler's kind, set by Dispatch (hooks see it).
	Kind protocol.ToolKind
}

// Hooks are the user's hooks around a call (core/hooks, adapted by the
// engine to the calling thread). Any field may be nil.
type Hooks struct {
	// Before (PreToolUse) runs before the handler is resolved or asked
	// about: a non-nil result refuses the call (the model reads it, After
	// does not run); it may rewrite call.Args.
	Before func(ctx context.Context, env *Env, call *Call) *Result
	// After (PostToolUse) sees every call Before did not refuse, with its
	// final result, and may add to the output.
	After func(ctx context.Context, env *Env, call Call, res *Result)
	// Permission (PermissionRequest) may answer an approval the call asks
	// for before anyone is asked; ok false means it did not.
	Permission func(ctx context.Context, env *Env, req protocol.ApprovalRequest) (d protocol.ReviewDecision, ok bool)
}

// Route is how a thread's calls find their handler.
type Route struct {
	// Own are the thread's own tools (a surface's tools for this run):
	// they come first and no tool policy applies to them.
	Own *Registry
	// Refused is a surface's own answer for a registered tool its filter
	// refuses (ok false: the surface has none).
	Refused func(name string) (msg string, ok bool)
	// Allow is the thread's tool policy (nil: every tool).
	Allow func(name string) bool
	// EnvErr is why the call's environment could not be built (the
	// thread's host is unreachable): the call fails with it unrun.
	EnvErr error
}

// Kind is the kind of the tool name resolves to for this route:
// the handler's own (Kinded), else the kind its name implies.
func (r *Registry) Kind(name string, route Route) protocol.ToolKind {
	if route.Own != nil {
		if t, ok := route.Own.Get(name); ok {
			return kindOf(t)
		}
	}
	if t, ok := r.Get(name); ok {
		return kindOf(t)
	}
	return protocol.ToolKindOf(name)
}

// Spawns reports whether the call would reach a handler along route
// (as resolveAndRun finds it) that starts a sub-agent (Spawner).
func (r *Registry) Spawns(name string, args json.RawMessage, route Route) bool {
	t, ok := r.routed(name, route)
	s, isSpawner := t.(Spawner)
	return ok && isSpawner && s.SpawnsAgent(args)
}

// routed is the handler a call of name reaches along route, if it runs
// one (a refused or disallowed name reaches none).
func (r *Registry) routed(name string, route Route) (Tool, bool) {
	if route.Own != nil {
		if t, ok := route.Own.Get(name); ok {
			return t, true
		}
	}
	if route.Refused != nil {
		if _, refused := route.Refused(name); refused {
			return nil, false
		}
	}
	if route.Allow != nil && !route.Allow(name) {
		return nil, false
	}
	return r.Get(name)
}

// Dispatch is the one path of a tool call (see above); it returns what
// the model reads.
func (r *Registry) Dispatch(ctx context.Context, env *Env, c Call, route Route) Result {
	if env == nil {
		env = &Env{}
	}
	hooks := env.Hooks
	if hooks == nil {
		hooks = &Hooks{}
	}
	c.Kind = r.Kind(c.Name, route)
	kind := c.Kind
	emit(env, protocol.ToolCallBeginMsg{Call: protocol.ToolCall{CallID: c.ID, Name: c.Name, Kind: kind, Arguments: string(c.Args)}})
	start := time.Now()
	var res Result
	blocked := false
	switch {
	case route.EnvErr != nil:
		res = Errorf("%s: %v", c.Name, route.EnvErr)
	case hooks.Before != nil:
		if refused := hooks.Before(ctx, env, &c); refused != nil {
			res, blocked = *refused, true
		}
	}
	if route.EnvErr == nil && !blocked {
		res = r.resolveAndRun(ctx, withPermissionHook(env, hooks), c, route)
	}
	if !blocked && hooks.After != nil {
		hooks.After(ctx, env, c, &res)
	}
	if ctx.Err() != nil && !res.IsError && res.Output == "" {
		res = Result{Output: "aborted: the turn was interrupted", IsError: true}
	}
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	emit(env, protocol.ToolCallEndMsg{Call: protocol.ToolCall{
		CallID: c.ID, Name: c.Name, Kind: kind, Arguments: string(c.Args), Output: res.Output,
		IsError: res.IsError, ExitCode: res.ExitCode, DurationMS: res.Duration.Milliseconds(), CommandOutput: res.CommandOutput,
		ProcessID: res.ProcessID, Summary: res.Summary, AgentIDs: res.AgentIDs, SandboxDenied: res.SandboxDenied,
	}})
	return res
}

// resolveAndRun finds the call's handler along the route and runs it
// through the orchestrator.
func (r *Registry) resolveAndRun(ctx context.Context, env *Env, c Call, route Route) Result {
	if route.Own != nil {
		if _, ok := route.Own.Get(c.Name); ok {
			return route.Own.RunAllowed(ctx, env, c.Name, c.Args, nil)
		}
	}
	if route.Refused != nil {
		if msg, ok := route.Refused(c.Name); ok {
			return Result{Output: msg, IsError: true}
		}
	}
	return r.RunAllowed(ctx, env, c.Name, c.Args, route.Allow)
}

// withPermissionHook returns env whose Approve lets the PermissionRequest
// hook answer first: every approval the call asks for (a gate's, an MCP
// server's) passes it.
func withPermissionHook(env *Env, h *Hooks) *Env {
	if h.Permission == nil || env.Approve == nil {
		return env
	}
	e := *env
	ask := env.Approve
	e.Approve = func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		if d, ok := h.Permission(ctx, env, req); ok {
			return d, nil
		}
		return ask(ctx, req)
	}
	return &e
}

// emit publishes one of the call's events where the thread records them.
func emit(env *Env, msg protocol.EventMsg) {
	if env.Emit != nil {
		env.Emit(protocol.NewEvent(env.ThreadID, env.TurnID, msg))
	}
}

// Kinded is implemented by handlers that say what kind of tool they are;
// the others get the kind their name implies (protocol.ToolKindOf).
type Kinded interface {
	Kind() protocol.ToolKind
}

func kindOf(t Tool) protocol.ToolKind {
	if k, ok := t.(Kinded); ok {
		return k.Kind()
	}
	return protocol.ToolKindOf(t.Spec().Name)
}
