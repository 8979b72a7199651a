package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// collabTool adapts an engine method to the tools.Tool interface.
type collabTool struct {
	spec model.ToolSpec
	run  func(ctx context.Context, caller *Thread, env *tools.Env, args json.RawMessage) tools.Result
	e    *Engine
}

func (c *collabTool) Spec() model.ToolSpec { return c.spec }

func (c *collabTool) Run(ctx context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	caller := c.e.thread(env.ThreadID)
	if caller == nil {
		return tools.Errorf("%s: calling thread %s is not part of this session", c.spec.Name, env.ThreadID)
	}
	return c.run(ctx, caller, env, args)
}

func (e *Engine) registerCollabTools() error {
	// Each schema is generated from the struct its handler decodes, so
	// the two cannot drift apart.
	defs := []struct {
		name, desc string
		params     any
		run        func(context.Context, *Thread, *tools.Env, json.RawMessage) tools.Result
	}{
		{"spawn_agent", spawnDesc, spawnArgs{}, e.toolSpawn},
		{"send_input", sendInputDesc, sendInputArgs{}, e.toolSendInput},
		{"wait", waitDesc, waitArgs{}, e.toolWait},
		{"resume_agent", resumeDesc, idArg{}, e.toolResume},
		{"close_agent", closeDesc, idArg{}, e.toolClose},
		{"list_agents", listAgentsDesc, listAgentsArgs{}, e.toolListAgents},
		{"list_active_agents", listActiveDesc, listActiveArgs{}, e.toolListActive},
		{"set_thread_note", setNoteDesc, setNoteArgs{}, e.toolSetNote},
	}
	for _, d := range defs {
		if t, exists := e.tools.Get(d.name); exists {
			e.collabTools = append(e.collabTools, t)
			continue // a registry shared between engines already has them bound
		}
		params, err := schema.Object(d.params)
		if err != nil {
			return fmt.Errorf("register %s: %w", d.name, err)
		}
		t := &collabTool{e: e, run: d.run, spec: model.ToolSpec{Name: d.name, Description: d.desc, Parameters: params}}
		if err := e.tools.Register(t); err != nil {
			return fmt.Errorf("register %s: %w", d.name, err)
		}
		e.collabTools = append(e.collabTools, t)
	}
	return nil
}

// CollabTools are the engine's seed-000 collaboration tools (spawn_agent,
// wait, …), for the surface that offers them (core/surface/collab).
func (e *Engine) CollabTools() []tools.Tool { return append([]tools.Tool(nil), e.collabTools...) }

// jsonResult renders a successful structured result.
func jsonResult(v any, summary string, ids ...protocol.ThreadID) tools.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Errorf("encode result: %v", err)
	}
	return tools.Result{Output: string(b), Summary: summary, AgentIDs: ids}
}

// decodeArgs unmarshals tool arguments (already schema-validated).
func decodeArgs(name string, raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v", name, err)
	}
	return nil
}

// idArg reads `id`, accepting Codex's `target` alias.
type idArg struct {
	ID     string `json:"id" jsonschema:"agent_id of the target agent."`
	Target string `json:"target" jsonschema:"Alias of id."`
}

func (a idArg) get() (protocol.ThreadID, error) {
	switch {
	case a.ID != "" && a.Target != "" && a.ID != a.Target:
		return "", errors.New("give id or target, not both")
	case a.ID != "":
		return protocol.ThreadID(strings.TrimSpace(a.ID)), nil
	case a.Target != "":
		return protocol.ThreadID(strings.TrimSpace(a.Target)), nil
	}
	return "", errors.New("missing required field id (the agent_id returned by spawn_agent)")
}

// --- spawn_agent ---

type spawnArgs struct {
	Message          string               `json:"message" jsonschema:"The task for the new agent. Provide message or items, not both."`
	Items            []protocol.InputItem `json:"items" jsonschema:"Structured input instead of message."`
	AgentType        string               `json:"agent_type" jsonschema:"Role template (snake_case or kebab-case), e.g. worker, explorer, orchestrator. Omit for a default agent."`
	AgentName        string               `json:"agent_name" jsonschema:"Persona within the agent_type template."`
	WorkingDirectory string               `json:"working_directory" jsonschema:"Directory the agent works in (default: yours). A different directory needs user approval."`
	Model            string               `json:"model" jsonschema:"Model override."`
	ReasoningEffort  string               `json:"reasoning_effort" jsonschema:"Reasoning effort override: minimal, low, medium, high or xhigh."`
	ThreadNote       *string              `json:"thread_note" jsonschema:"Short note shown in the agent tree."`
}

func (e *Engine) toolSpawn(ctx context.Context, caller *Thread, env *tools.Env, raw json.RawMessage) tools.Result {
	var a spawnArgs
	if err := decodeArgs("spawn_agent", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	if strings.TrimSpace(a.Message) != "" && len(a.Items) > 0 {
		return tools.Errorf("spawn_agent: provide either message or items, not both")
	}
	items, err := inputItems(strings.TrimSpace(a.Message), a.Items)
	if err != nil {
		return tools.Errorf("spawn_agent: %v", err)
	}
	child, err := e.spawn(ctx, spawnRequest{
		caller: caller, callID: env.CallID, items: fromAgent(caller.id, items),
		agentType: strings.TrimSpace(a.AgentType), agentName: strings.TrimSpace(a.AgentName),
		workdir: strings.TrimSpace(a.WorkingDirectory), model: strings.TrimSpace(a.Model),
		effort: strings.TrimSpace(a.ReasoningEffort), note: a.ThreadNote,
	})
	if err != nil {
		return tools.Errorf("%v", err)
	}
	info := child.info()
	out := map[string]any{
		"agent_id": child.id, "agent_type": info.AgentType, "model": info.Model,
		"working_directory": info.Cwd, "thread_note": info.Note,
	}
	if info.AgentName != "" {
		out["agent_name"] = info.AgentName
	}
	if info.ReasoningEffort != "" {
		out["reasoning_effort"] = info.ReasoningEffort
	}
	return jsonResult(out, fmt.Sprintf("spawned %s %s", child.label(), child.id.Short()), child.id)
}

// --- send_input ---

type sendInputArgs struct {
	idArg
	Message   string               `json:"message"`
	Items     []protocol.InputItem `json:"items" jsonschema:"Structured input instead of message."`
	Interrupt bool                 `json:"interrupt" jsonschema:"Interrupt the agent's current work first."`
}

func (e *Engine) toolSendInput(_ context.Context, caller *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a sendInputArgs
	if err := decodeArgs("send_input", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := a.get()
	if err != nil {
		return tools.Errorf("send_input: %v", err)
	}
	items, err := inputItems(strings.TrimSpace(a.Message), a.Items)
	if err != nil {
		return tools.Errorf("send_input: %v", err)
	}
	t := e.thread(id)
	if t == nil {
		return tools.Errorf("send_input: no agent %s in this session (see list_active_agents)", id)
	}
	if !e.mayControl(caller, t) {
		return tools.Errorf("%v", notOwnedError("send_input", id))
	}
	if !t.deliver(a.Interrupt, fromAgent(caller.id, items)...) {
		return tools.Errorf("send_input: agent %s is closed; call resume_agent first", id)
	}
	return jsonResult(map[string]any{"submission_id": uuid.NewString()}, "sent input to "+t.label(), id)
}

// --- wait ---

type waitArgs struct {
	IDs       []string `json:"ids" minItems:"1" jsonschema:"agent_ids to wait on."`
	Targets   []string `json:"targets" minItems:"1" jsonschema:"Alias of ids."`
	TimeoutMS *int64   `json:"timeout_ms" jsonschema:"Clamped to 10000..1800000; default 300000."`
}

func (e *Engine) toolWait(ctx context.Context, caller *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a waitArgs
	if err := decodeArgs("wait", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	list := a.IDs
	if len(list) == 0 {
		list = a.Targets
	}
	if len(list) == 0 {
		return tools.Errorf("wait: ids must be a non-empty list of agent ids")
	}
	ids := make([]protocol.ThreadID, 0, len(list))
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			ids = append(ids, protocol.ThreadID(s))
		}
	}
	if len(ids) == 0 {
		return tools.Errorf("wait: ids must be a non-empty list of agent ids")
	}
	if err := e.checkWaitable(caller, ids); err != nil {
		return tools.Errorf("%v", err)
	}
	statuses, timedOut, err := e.waitAny(ctx, ids, e.clampWait(a.TimeoutMS))
	if err != nil {
		return tools.Errorf("wait interrupted: %v", err)
	}
	out := map[string]any{"status": statuses, "timed_out": timedOut}
	// The wire status of an interrupted agent is the bare "interrupted";
	// what it had said before the interruption travels beside it.
	saidSoFar := map[protocol.ThreadID]string{}
	for id, st := range statuses {
		if st.Kind == protocol.StatusInterrupted {
			saidSoFar[id] = st.Message
		}
	}
	if len(saidSoFar) > 0 {
		out["said_so_far"] = saidSoFar
	}
	summary := fmt.Sprintf("%d of %d final", len(statuses), len(ids))
	if timedOut {
		summary = "timed out"
	}
	return jsonResult(out, summary, ids...)
}

// --- resume_agent ---

func (e *Engine) toolResume(_ context.Context, caller *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a idArg
	if err := decodeArgs("resume_agent", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := a.get()
	if err != nil {
		return tools.Errorf("resume_agent: %v", err)
	}
	if t := e.thread(id); t != nil && !e.mayControl(caller, t) {
		return tools.Errorf("%v", notOwnedError("resume_agent", id))
	}
	st, err := e.resumeThread(id)
	if err != nil {
		return tools.Errorf("resume_agent: %v", err)
	}
	return jsonResult(map[string]any{"status": st}, "resumed "+id.Short(), id)
}

// --- close_agent ---

func (e *Engine) toolClose(_ context.Context, caller *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a idArg
	if err := decodeArgs("close_agent", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := a.get()
	if err != nil {
		return tools.Errorf("close_agent: %v", err)
	}
	t := e.thread(id)
	if t == nil {
		return tools.Errorf("close_agent: no agent %s in this session (see list_active_agents)", id)
	}
	if t.parentID == "" {
		return tools.Errorf("close_agent: %s is the root thread and cannot be closed", id)
	}
	if !e.mayControl(caller, t) {
		return tools.Errorf("%v", notOwnedError("close_agent", id))
	}
	prev, _ := t.Status()
	if err := e.closeSubtree(t, caller); err != nil {
		return tools.Errorf("close_agent: %v", err)
	}
	return jsonResult(map[string]any{"status": prev}, "closed "+t.label(), id)
}

// --- set_thread_note ---

type setNoteArgs struct {
	ID     string `json:"id" jsonschema:"agent_id (your own id to set your note)."`
	Target string `json:"target" jsonschema:"Alias of id."`
	Note   string `json:"note" required:"true" jsonschema:"The note; empty clears it."`
}

func (e *Engine) toolSetNote(_ context.Context, caller *Thread, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a setNoteArgs
	if err := decodeArgs("set_thread_note", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := idArg{ID: a.ID, Target: a.Target}.get()
	if err != nil {
		return tools.Errorf("set_thread_note: %v", err)
	}
	t := e.thread(id)
	if t == nil {
		return tools.Errorf("set_thread_note: no agent %s in this session", id)
	}
	if !e.mayControl(caller, t) {
		return tools.Errorf("%v", notOwnedError("set_thread_note", id))
	}
	n, err := e.setNote(t, a.Note)
	if err != nil {
		return tools.Errorf("set_thread_note: %v", err)
	}
	var note any = n
	if n == "" {
		note = nil
	}
	return jsonResult(map[string]any{"submission_id": uuid.NewString(), "thread_note": note}, "note set", id)
}
