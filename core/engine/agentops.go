package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/templates"
)

// The agent operations the delegation surfaces call (core/surface/collab
// builds seed 000's tools on them). Each acts for a calling thread and
// resolves target ids only among this engine's threads, applying the
// ownership rule of ownership.go; the surface names the tool in its
// messages, the engine names none.

// NotFoundError: the id is no agent of the caller's session.
type NotFoundError struct{ ID protocol.ThreadID }

// AgentNotFound marks the kind for surfaces (which do not import engine).
func (NotFoundError) AgentNotFound() {}

func (e NotFoundError) Error() string { return fmt.Sprintf("no agent %s in this session", e.ID) }

// NotOwnedError: the caller may not act on the agent.
type NotOwnedError struct{ ID protocol.ThreadID }

// AgentNotOwned marks the kind for surfaces.
func (NotOwnedError) AgentNotOwned() {}

func (e NotOwnedError) Error() string {
	return fmt.Sprintf("agent %s is not this agent or one of its descendants; a sub-agent may only act on itself and its own subtree", e.ID)
}

// ClosedError: the agent is closed and takes no input until resumed.
type ClosedError struct{ ID protocol.ThreadID }

// AgentClosed marks the kind for surfaces.
func (ClosedError) AgentClosed() {}

func (e ClosedError) Error() string { return fmt.Sprintf("agent %s is closed", e.ID) }

// InputError: the message or items given are unusable.
type InputError struct{ Err error }

// BadInput marks the kind for surfaces.
func (InputError) BadInput() {}

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// TranscriptNotFoundError: a resume names no agent of the caller's tree
// (seed 004's SubagentErr::TranscriptNotFound, same text).
type TranscriptNotFoundError struct{ ID protocol.ThreadID }

func (e TranscriptNotFoundError) Error() string {
	return fmt.Sprintf("Transcript not found for agent: %s", e.ID)
}

// RootError: the operation does not apply to the session's root thread.
type RootError struct{ ID protocol.ThreadID }

func (e RootError) Error() string {
	return fmt.Sprintf("%s is the root thread and cannot be closed", e.ID)
}

// callerThread resolves the thread a tool call runs in.
func (e *Engine) callerThread(id protocol.ThreadID) (*Thread, error) {
	t := e.thread(id)
	if t == nil {
		return nil, fmt.Errorf("calling thread %s is not part of this session", id)
	}
	return t, nil
}

// controlled resolves target for caller under the ownership rule.
func (e *Engine) controlled(caller *Thread, id protocol.ThreadID) (*Thread, error) {
	t := e.thread(id)
	if t == nil {
		return nil, NotFoundError{ID: id}
	}
	if !e.mayControl(caller, t) {
		return nil, NotOwnedError{ID: id}
	}
	return t, nil
}

// Spawn starts a default or role-template sub-agent of callerID on the
// request's input and returns the new thread.
func (e *Engine) Spawn(ctx context.Context, callerID protocol.ThreadID, r protocol.SpawnRequest) (protocol.ThreadInfo, error) {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return protocol.ThreadInfo{}, err
	}
	items, err := inputItems(caller, strings.TrimSpace(r.Message), r.Items)
	if err != nil {
		return protocol.ThreadInfo{}, InputError{Err: err}
	}
	req := spawnRequest{
		caller: caller, callID: r.CallID, items: fromAgent(caller.id, items),
		agentType: strings.TrimSpace(r.AgentType), agentName: strings.TrimSpace(r.AgentName),
		workdir: strings.TrimSpace(r.WorkingDirectory), model: strings.TrimSpace(r.Model),
		effort: strings.TrimSpace(r.ReasoningEffort), note: r.Note,
	}
	if r.ForkTurns != 0 {
		if r.ForkTurns < 0 && (req.agentType != "" || req.model != "" || req.effort != "") {
			return protocol.ThreadInfo{}, InputError{Err: errFullForkOverrides}
		}
		req.history = forkedHistory(e.History(caller.id), r.ForkTurns)
	}
	child, err := e.spawn(ctx, req)
	if err != nil {
		return protocol.ThreadInfo{}, err
	}
	return child.info(), nil
}

// Send delivers a message (text or items) from callerID to agent id,
// interrupting its current work first when asked.
func (e *Engine) Send(callerID, id protocol.ThreadID, message string, items []protocol.InputItem, interrupt bool) error {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return err
	}
	in, err := inputItems(caller, strings.TrimSpace(message), items)
	if err != nil {
		return InputError{Err: err}
	}
	t, err := e.controlled(caller, id)
	if err != nil {
		return err
	}
	if !t.deliver(interrupt, fromAgent(caller.id, in)...) {
		return ClosedError{ID: id}
	}
	return nil
}

// WaitAgents blocks until one of ids is final (or interrupted) or the
// timeout passes (seed 000's clamp applies; nil is the default). Unknown
// ids are final as not_found at once.
func (e *Engine) WaitAgents(ctx context.Context, callerID protocol.ThreadID, ids []protocol.ThreadID, timeoutMS *int64) (map[protocol.ThreadID]protocol.AgentStatus, bool, error) {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return nil, false, err
	}
	if err := e.checkWaitable(caller, ids); err != nil {
		return nil, false, err
	}
	return e.waitAny(ctx, ids, e.clampWait(timeoutMS))
}

// ResumeAgent reopens a closed agent from its rollout (a no-op on an open
// one) and returns its status.
func (e *Engine) ResumeAgent(callerID, id protocol.ThreadID) (protocol.AgentStatus, error) {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return protocol.AgentStatus{}, err
	}
	if _, err := e.controlled(caller, id); err != nil {
		return protocol.AgentStatus{}, err
	}
	return e.resumeThread(id)
}

// CloseAgent closes agent id and its subtree and returns the status it had.
func (e *Engine) CloseAgent(callerID, id protocol.ThreadID) (protocol.AgentStatus, error) {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return protocol.AgentStatus{}, err
	}
	t := e.thread(id)
	if t == nil {
		return protocol.AgentStatus{}, NotFoundError{ID: id}
	}
	if t.parentID == "" {
		return protocol.AgentStatus{}, RootError{ID: id}
	}
	if _, err := e.controlled(caller, id); err != nil {
		return protocol.AgentStatus{}, err
	}
	prev, _ := t.Status()
	if err := e.closeSubtree(t, caller); err != nil {
		return protocol.AgentStatus{}, err
	}
	return prev, nil
}

// SetNote sets agent id's thread note (empty clears it) and returns the
// normalised note.
func (e *Engine) SetNote(callerID, id protocol.ThreadID, note string) (string, error) {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return "", err
	}
	t, err := e.controlled(caller, id)
	if err != nil {
		return "", err
	}
	return e.setNote(t, note)
}

// Templates is the role template catalog spawns draw from.
func (e *Engine) Templates() *templates.Catalog { return e.opts.Templates }

// ListActive lists the caller's spawned agents with their live status.
func (e *Engine) ListActive(callerID protocol.ThreadID, r protocol.ListActiveRequest) ([]protocol.ActiveAgent, error) {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return nil, err
	}
	var candidates []*Thread
	switch r.Scope {
	case "", "children":
		caller.mu.Lock()
		kids := append([]protocol.ThreadID(nil), caller.children...)
		caller.mu.Unlock()
		for _, id := range kids {
			if t := e.thread(id); t != nil {
				candidates = append(candidates, t)
			}
		}
	case "descendants":
		candidates = e.subtree(caller)[1:]
	case "all":
		for _, t := range e.tree.all() {
			if t.parentID != "" {
				candidates = append(candidates, t)
			}
		}
	default:
		return nil, fmt.Errorf("scope %q: expected children, descendants or all", r.Scope)
	}
	now := e.now()
	rows := make([]protocol.ActiveAgent, 0, len(candidates))
	for _, t := range candidates {
		if row, ok := e.activeRow(t, now, r); ok {
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// activeRow is t's list_active_agents row; ok is false for a closed agent
// the request leaves out.
func (e *Engine) activeRow(t *Thread, now time.Time, r protocol.ListActiveRequest) (protocol.ActiveAgent, bool) {
	info := t.info()
	st, since := t.Status()
	if !r.IncludeClosed && (st.Kind == protocol.StatusShutdown || st.Kind == protocol.StatusNotFound) {
		return protocol.ActiveAgent{}, false
	}
	// The snapshot duration comes from the last transition recorded in
	// the rollout; the in-memory time is the fallback.
	if info.RolloutPath != "" {
		if rst, at, ok, err := rollout.LastStatusChange(info.RolloutPath); err == nil && ok && rst.Kind == st.Kind {
			since = at
		}
	}
	row := protocol.ActiveAgent{
		ThreadID: t.id, ThreadName: optStr(threadName(info)), ThreadNote: optStr(info.Note),
		AgentType: optStr(info.AgentType), AgentName: optStr(info.AgentName),
		Status: st, StatusDurationSec: math.Round(now.Sub(since).Seconds()*10) / 10,
		Model: info.Model, ReasoningEffort: optStr(info.ReasoningEffort),
		UpdatedAt: since.UTC().Format(time.RFC3339),
	}
	if r.IncludeTree {
		p, d := t.parentID, t.depth
		row.ParentThreadID, row.Depth = &p, &d
	}
	return row, true
}

// threadName is a row's thread_name: the thread's own name, else what
// names the agent (its persona, then its role); null only for a default
// agent nobody named.
func threadName(info protocol.ThreadInfo) string {
	for _, n := range []string{info.Name, info.AgentName, info.AgentType} {
		if n != "" {
			return n
		}
	}
	return ""
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
