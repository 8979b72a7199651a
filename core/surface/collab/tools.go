package collab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// Descriptions of the tools (seed 000); their schemas are generated from
// the argument structs below.
const (
	spawnDesc      = `Start a sub-agent that works in parallel on a self-contained task and returns {agent_id, ...} immediately. Give it everything it needs in message (goal, files, constraints, what to report). Pick a role with agent_type (see list_agents; e.g. explorer for read-only investigation, worker for changes) and optionally a persona with agent_name. working_directory different from yours needs the user's approval. Use wait to collect its result and close_agent when done.`
	sendInputDesc  = `Send a follow-up message to a sub-agent. With interrupt=true its current work is interrupted first.`
	waitDesc       = `Wait until at least one of the given agents reaches a final status (completed, errored, shutdown, not_found). Returns {status: {id: final_status}, timed_out}. Returns as soon as one is final, including others that finished at the same moment. An agent interrupted by the user also ends the wait: its status is interrupted and said_so_far holds what it had said before the interruption (send_input gives it new work). timeout_ms is clamped to 10000..1800000 (default 300000); on timeout status is empty and timed_out is true.`
	resumeDesc     = `Reopen a closed agent from its saved history so it can take input again. No-op for an agent that is still open.`
	closeDesc      = `Close an agent and its whole subtree: running work is stopped and their status becomes shutdown. A sub-agent may close only itself and its own descendants.`
	listAgentsDesc = `List the agent roles (agent_type) available to spawn_agent, with descriptions, tool allow/deny lists and personas (agent_names). expanded=true adds model, reasoning_effort and prompts. Filter with agent_type.`
	listActiveDesc = `List spawned agents with their live status, note, model and how long they have been in their status. scope: children (default), descendants or all; include_tree adds parent_thread_id and depth; include_closed also lists shut-down agents.`
	setNoteDesc    = `Set the short note shown next to an agent in the agent tree (what it is doing). An empty note clears it. Notes are trimmed, whitespace-collapsed and cut to 500 characters.`
)

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

type spawnArgs struct {
	Message          string               `json:"message" jsonschema:"The task for the new agent. Provide message or items, not both."`
	Items            []protocol.InputItem `json:"items" jsonschema:"Structured input instead of message."`
	AgentType        string               `json:"agent_type" jsonschema:"Role template (snake_case or kebab-case), e.g. worker, explorer, orchestrator. Omit for a default agent."`
	AgentName        string               `json:"agent_name" jsonschema:"Persona within the agent_type template."`
	WorkingDirectory string               `json:"working_directory" jsonschema:"Directory the agent works in (default: yours). A different directory needs user approval."`
	Model            string               `json:"model" jsonschema:"Model override."`
	ReasoningEffort  string               `json:"reasoning_effort" jsonschema:"Reasoning effort override: minimal, low, medium, high or xhigh."`
	ThreadNote       *string              `json:"thread_note" jsonschema:"Short note shown in the agent tree."`
	// Codex's spawn fields (multi_agents/spawn.rs and its v2), which
	// GPT/Codex models send by habit.
	ForkContext bool            `json:"fork_context" jsonschema:"Start the agent on a copy of your whole conversation (it then keeps your role and model: omit agent_type, model and reasoning_effort)."`
	ForkTurns   json.RawMessage `json:"fork_turns" jsonschema:"How much of your conversation the agent starts with: none (default), all, or the number of your most recent turns." schema:"{\"anyOf\":[{\"type\":\"string\",\"enum\":[\"none\",\"all\"]},{\"type\":\"integer\",\"minimum\":0},{\"type\":\"string\",\"pattern\":\"^[0-9]+$\"}]}"`
	TaskName    string          `json:"task_name" jsonschema:"Short snake_case name for the task; shown as the agent's note when thread_note is not given."`
}

// forkTurns reads fork_context and fork_turns into SpawnRequest.ForkTurns.
func (a spawnArgs) forkTurns() (int, error) {
	n := 0
	if a.ForkContext {
		n = protocol.ForkAllTurns
	}
	raw := strings.TrimSpace(string(a.ForkTurns))
	if raw == "" || raw == "null" {
		return n, nil
	}
	var s string
	if json.Unmarshal(a.ForkTurns, &s) != nil {
		s = raw // a number
	}
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "none", "0":
		return n, nil
	case "all":
		return protocol.ForkAllTurns, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf(`spawn_agent: fork_turns %s: expected "none", "all" or a number of turns`, raw)
	}
	return v, nil
}

func (s *Surface) spawn(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a spawnArgs
	if err := decodeArgs("spawn_agent", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	if strings.TrimSpace(a.Message) != "" && len(a.Items) > 0 {
		return tools.Errorf("spawn_agent: provide either message or items, not both")
	}
	fork, err := a.forkTurns()
	if err != nil {
		return tools.Errorf("%v", err)
	}
	note := a.ThreadNote
	if name := strings.TrimSpace(a.TaskName); note == nil && name != "" {
		note = &name
	}
	info, err := s.a.Spawn(ctx, env.ThreadID, protocol.SpawnRequest{
		CallID: env.CallID, Message: a.Message, Items: a.Items,
		AgentType: a.AgentType, AgentName: a.AgentName, WorkingDirectory: a.WorkingDirectory,
		Model: a.Model, ReasoningEffort: a.ReasoningEffort, Note: note, ForkTurns: fork,
	})
	var bad interface{ BadInput() }
	if res, ok := spawnError(err); ok {
		return res
	}
	switch {
	case errors.As(err, &bad):
		return tools.Errorf("spawn_agent: %v", err)
	case err != nil:
		return tools.Errorf("%v", err)
	}
	out := map[string]any{
		"agent_id": info.ID, "agent_type": info.AgentType, "model": info.Model,
		"working_directory": info.Cwd, "thread_note": info.Note,
	}
	if info.AgentName != "" {
		out["agent_name"] = info.AgentName
	}
	if info.Nickname != "" {
		// As Codex's spawn_agent answers (codex-rs/core/src/tools/handlers/
		// multi_agents/spawn.rs, SpawnAgentResult.nickname): the name the
		// user sees this agent by.
		out["nickname"] = info.Nickname
	}
	if info.ReasoningEffort != "" {
		out["reasoning_effort"] = info.ReasoningEffort
	}
	return jsonResult(out, fmt.Sprintf("spawned %s %s", info.Label(), info.ID.Short()), info.ID)
}

type sendInputArgs struct {
	idArg
	Message   string               `json:"message"`
	Items     []protocol.InputItem `json:"items" jsonschema:"Structured input instead of message."`
	Interrupt bool                 `json:"interrupt" jsonschema:"Interrupt the agent's current work first."`
}

func (s *Surface) sendInput(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a sendInputArgs
	if err := decodeArgs("send_input", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := a.get()
	if err != nil {
		return tools.Errorf("send_input: %v", err)
	}
	if err := s.a.Send(env.ThreadID, id, a.Message, a.Items, a.Interrupt); err != nil {
		return toolError("send_input", err)
	}
	return jsonResult(map[string]any{"submission_id": uuid.NewString()}, "sent input to "+s.label(id), id)
}

// label names agent id for a summary line.
func (s *Surface) label(id protocol.ThreadID) string {
	if info, ok := s.a.Info(id); ok {
		return info.Label()
	}
	return id.Short()
}

type waitArgs struct {
	IDs       []string `json:"ids" minItems:"1" jsonschema:"agent_ids to wait on."`
	Targets   []string `json:"targets" minItems:"1" jsonschema:"Alias of ids."`
	TimeoutMS *int64   `json:"timeout_ms" jsonschema:"Clamped to 10000..1800000; default 300000."`
}

func (s *Surface) wait(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a waitArgs
	if err := decodeArgs("wait", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	list := a.IDs
	if len(list) == 0 {
		list = a.Targets
	}
	ids := make([]protocol.ThreadID, 0, len(list))
	for _, v := range list {
		if v = strings.TrimSpace(v); v != "" {
			ids = append(ids, protocol.ThreadID(v))
		}
	}
	if len(ids) == 0 {
		return tools.Errorf("wait: ids must be a non-empty list of agent ids")
	}
	statuses, timedOut, err := s.a.WaitAgents(ctx, env.ThreadID, ids, a.TimeoutMS)
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return tools.Errorf("wait interrupted: %v", err)
	case err != nil:
		return tools.Errorf("%v", err)
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

func (s *Surface) resume(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a idArg
	if err := decodeArgs("resume_agent", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := a.get()
	if err != nil {
		return tools.Errorf("resume_agent: %v", err)
	}
	st, err := s.a.ResumeAgent(env.ThreadID, id)
	if err != nil {
		return toolError("resume_agent", err)
	}
	return jsonResult(map[string]any{"status": st}, "resumed "+id.Short(), id)
}

func (s *Surface) close(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a idArg
	if err := decodeArgs("close_agent", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := a.get()
	if err != nil {
		return tools.Errorf("close_agent: %v", err)
	}
	label := s.label(id)
	prev, err := s.a.CloseAgent(env.ThreadID, id)
	if err != nil {
		return toolError("close_agent", err)
	}
	return jsonResult(map[string]any{"status": prev}, "closed "+label, id)
}

type setNoteArgs struct {
	ID     string `json:"id" jsonschema:"agent_id (your own id to set your note)."`
	Target string `json:"target" jsonschema:"Alias of id."`
	Note   string `json:"note" required:"true" jsonschema:"The note; empty clears it."`
}

func (s *Surface) setNote(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a setNoteArgs
	if err := decodeArgs("set_thread_note", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id, err := idArg{ID: a.ID, Target: a.Target}.get()
	if err != nil {
		return tools.Errorf("set_thread_note: %v", err)
	}
	n, err := s.a.SetNote(env.ThreadID, id, a.Note)
	if err != nil {
		return toolError("set_thread_note", err)
	}
	var note any = n
	if n == "" {
		note = nil
	}
	return jsonResult(map[string]any{"submission_id": uuid.NewString(), "thread_note": note}, "note set", id)
}

type listActiveArgs struct {
	Scope         string `json:"scope" enum:"children,descendants,all" jsonschema:"children (default), descendants or all."`
	IncludeTree   bool   `json:"include_tree" jsonschema:"Add parent_thread_id and depth."`
	IncludeClosed *bool  `json:"include_closed" jsonschema:"Also list shutdown/not_found agents (default false)."`
}

func (s *Surface) listActive(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a listActiveArgs
	if err := decodeArgs("list_active_agents", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	rows, err := s.a.ListActive(env.ThreadID, protocol.ListActiveRequest{
		Scope: a.Scope, IncludeTree: a.IncludeTree, IncludeClosed: a.IncludeClosed != nil && *a.IncludeClosed,
	})
	if err != nil {
		return toolError("list_active_agents", err)
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

func (s *Surface) listAgents(_ context.Context, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a listAgentsArgs
	if err := decodeArgs("list_agents", raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	out, err := templates.ListAgents(s.a.Templates(), a.AgentType, a.Expanded)
	if err != nil {
		// The seed's messages are the whole answer (`missing agent
		// template: <agent_type>`); each already names the template.
		return tools.Errorf("%v", err)
	}
	return jsonResult(out, "listed agent templates")
}
