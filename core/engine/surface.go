package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// Surface is one set of delegation tools a thread may be offered (the
// packages under core/surface build them over the engine's public
// primitives). The engine knows surfaces only by the names they give
// themselves: it registers their tools and shows every thread the tools of
// its own surface and of no other.
type Surface interface {
	Name() string
	Tools() []tools.Tool
}

// SurfaceQuery is what selecting a thread's surface may look at.
type SurfaceQuery struct {
	Model string
	// Template is the role template's `surface:` ("" when none).
	Template string
	// Parent is the spawning thread's surface ("" for the root).
	Parent string
}

// SurfaceFactory builds a surface once the engine exists (its tools call
// back into the engine through Ops, never the front ends' API).
type SurfaceFactory func(Ops) (Surface, error)

// surfaceSet is the engine's registered surfaces.
type surfaceSet struct {
	names  []string          // registration order
	owner  map[string]string // tool name → surface name
	byName map[string]Surface
}

// installSurfaces builds and registers the configured surfaces. A tool
// that is already registered (the engine's own collaboration tools, or a
// registry shared between engines) is only claimed, not registered again.
func (e *Engine) installSurfaces() error {
	e.surfaces.owner = map[string]string{}
	e.surfaces.byName = map[string]Surface{}
	for _, f := range e.opts.Surfaces {
		s, err := f(e)
		if err != nil {
			return fmt.Errorf("engine: build surface: %w", err)
		}
		name := s.Name()
		if name == "" {
			return fmt.Errorf("engine: a surface has no name")
		}
		for _, n := range e.surfaces.names {
			if n == name {
				return fmt.Errorf("engine: surface %q registered twice", name)
			}
		}
		e.surfaces.names = append(e.surfaces.names, name)
		e.surfaces.byName[name] = s
		for _, t := range s.Tools() {
			tn := t.Spec().Name
			if prev, taken := e.surfaces.owner[tn]; taken {
				return fmt.Errorf("engine: tool %s belongs to surfaces %s and %s", tn, prev, name)
			}
			e.surfaces.owner[tn] = name
			if _, exists := e.tools.Get(tn); exists {
				continue
			}
			if err := e.tools.Register(t); err != nil {
				return fmt.Errorf("engine: surface %s: %w", name, err)
			}
		}
	}
	return nil
}

// selectSurface picks a new thread's surface: the configured selector's
// answer when it names a registered surface, else the first surface.
func (e *Engine) selectSurface(q SurfaceQuery) (string, error) {
	if len(e.surfaces.names) == 0 {
		return "", nil
	}
	name := e.surfaces.names[0]
	if e.opts.SelectSurface != nil {
		name = strings.TrimSpace(e.opts.SelectSurface(q))
	}
	for _, n := range e.surfaces.names {
		if n == name {
			return name, nil
		}
	}
	return "", fmt.Errorf("unknown tool surface %q (available: %s)", name, strings.Join(e.surfaces.names, ", "))
}

// SurfaceNames lists the registered surfaces in registration order.
func (e *Engine) SurfaceNames() []string { return append([]string(nil), e.surfaces.names...) }

// surfaceAllows reports whether a thread on surface may see tool name:
// tools no surface owns are everyone's; a surface's tools are its own
// threads'. Without configured surfaces every tool is visible.
func (e *Engine) surfaceAllows(surface, name string) bool {
	owner, owned := e.surfaces.owner[name]
	return !owned || owner == surface
}

// OpHandler is a Surface with client ops of its own (the inbox surface's
// seed-001 ops). HandleOp runs the same operation as the surface's tool,
// publishes its answer on the thread (Engine.Answer) and returns it.
type OpHandler interface {
	Surface
	HandlesOp(protocol.OpType) bool
	HandleOp(ctx context.Context, thread protocol.ThreadID, op protocol.Op) (protocol.EventMsg, error)
}

// opHandler is the registered surface that answers ops of type t.
func (e *Engine) opHandler(t protocol.OpType) (OpHandler, bool) {
	for _, name := range e.surfaces.names {
		if h, ok := e.surfaces.byName[name].(OpHandler); ok && h.HandlesOp(t) {
			return h, true
		}
	}
	return nil, false
}

// SurfaceOp runs a client op that a surface answers on its thread (the
// root when op.ThreadID is empty) and returns the answer, which is also
// published there. The thread must be one that sees that surface: its
// model could not act on what the op starts (a sub-agent's news) otherwise.
func (e *Engine) SurfaceOp(op protocol.Op) (protocol.EventMsg, error) {
	h, ok := e.opHandler(op.Type)
	if !ok {
		return nil, fmt.Errorf("unknown op %q", op.Type)
	}
	id := op.ThreadID
	if id == "" {
		id = e.RootID()
	}
	t := e.thread(id)
	if t == nil {
		return nil, fmt.Errorf("%s: no thread %s", op.Type, id)
	}
	t.mu.Lock()
	surface := t.surface
	t.mu.Unlock()
	if surface != h.Name() {
		return nil, fmt.Errorf("%s: thread %s uses the %q tool surface; this op belongs to the %q surface (agents.surface)", op.Type, id, surface, h.Name())
	}
	if t.isClosed() {
		return nil, fmt.Errorf("%s: thread %s is closed", op.Type, id)
	}
	return h.HandleOp(e.ctx, id, op)
}

// Answer publishes a surface's answer m on thread and records it in the
// thread's rollout: turnID is the turn of the tool call it answers ("" for
// an op), clientID the op's client id ("" for a tool call).
func (e *Engine) Answer(thread protocol.ThreadID, turnID, clientID string, m protocol.EventMsg) {
	t := e.thread(thread)
	if t == nil {
		return
	}
	ev := protocol.NewEvent(thread, turnID, m)
	if clientID != "" {
		ev.ClientIDs = []string{clientID}
	}
	t.publish(ev)
	t.flush()
}
