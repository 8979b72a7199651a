package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/templates"
)

type listActiveArgs struct {
	Scope         string `json:"scope" enum:"children,descendants,all" jsonschema:"children (default), descendants or all."`
	IncludeTree   bool   `json:"include_tree" jsonschema:"Add parent_thread_id and depth."`
	IncludeClosed *bool  `json:"include_closed" jsonschema:"Also list shutdown/not_found agents (default false)."`
}

// activeAgent is one row of list_active_agents (seed 000 fields).
type activeAgent struct {
	ThreadID          protocol.ThreadID    `json:"thread_id"`
	ThreadName        *string              `json:"thread_name"`
	ThreadNote        *string              `json:"thread_note"`
	AgentType         *string              `json:"agent_type"`
	AgentName         *string              `json:"agent_name"`
	Status            protocol.AgentStatus `json:"status"`
	StatusDurationSec float64              `json:"status_duration_sec"`
	Model             string               `json:"model"`
	ReasoningEffort   *string              `json:"reasoning_effort"`
	UpdatedAt         string               `json:"updated_at"`
	ParentThreadID    *protocol.ThreadID   `json:"parent_thread_id,omitempty"`
	Depth             *int                 `json:"depth,omitempty"`
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (e *Engine) toolListActive(_ context.Context, caller *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a listActiveArgs
	if err := decodeArgs("list_active_agents", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	includeClosed := a.IncludeClosed != nil && *a.IncludeClosed
	var candidates []*Thread
	switch a.Scope {
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
		e.mu.Lock()
		for _, id := range e.order {
			if t := e.threads[id]; t.parentID != "" {
				candidates = append(candidates, t)
			}
		}
		e.mu.Unlock()
	default:
		return tools.Errorf("list_active_agents: scope %q: expected children, descendants or all", a.Scope)
	}
	now := e.now()
	rows := make([]activeAgent, 0, len(candidates))
	for _, t := range candidates {
		info := t.info()
		st, since := t.Status()
		if !includeClosed && (st.Kind == protocol.StatusShutdown || st.Kind == protocol.StatusNotFound) {
			continue
		}
		// The snapshot duration comes from the last transition recorded in
		// the rollout; the in-memory time is the fallback.
		if info.RolloutPath != "" {
			if rst, at, ok, err := rollout.LastStatusChange(info.RolloutPath); err == nil && ok && rst.Kind == st.Kind {
				since = at
			}
		}
		row := activeAgent{
			ThreadID: t.id, ThreadName: optStr(info.Name), ThreadNote: optStr(info.Note),
			AgentType: optStr(info.AgentType), AgentName: optStr(info.AgentName),
			Status: st, StatusDurationSec: math.Round(now.Sub(since).Seconds()*10) / 10,
			Model: info.Model, ReasoningEffort: optStr(info.ReasoningEffort),
			UpdatedAt: since.UTC().Format(time.RFC3339),
		}
		if a.IncludeTree {
			p, d := t.parentID, t.depth
			row.ParentThreadID, row.Depth = &p, &d
		}
		rows = append(rows, row)
	}
	ids := make([]protocol.ThreadID, len(rows))
	for i, r := range rows {
		ids[i] = r.ThreadID
	}
	return jsonResult(map[string]any{"agents": rows}, fmt.Sprintf("%d agents", len(rows)), ids...)
}

type listAgentsArgs struct {
	AgentType string `json:"agent_type" jsonschema:"Only this role."`
	Expanded  bool   `json:"expanded" jsonschema:"Include model, reasoning_effort and prompts."`
}

func (e *Engine) toolListAgents(_ context.Context, _ *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a listAgentsArgs
	if err := decodeArgs("list_agents", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	out, err := templates.ListAgents(e.opts.Templates, a.AgentType, a.Expanded)
	if err != nil {
		return tools.Errorf("list_agents: %v", err)
	}
	return jsonResult(out, "listed agent templates")
}
