// Package collab is seed 000's delegation surface: spawn_agent,
// send_input, wait, resume_agent, close_agent, list_agents,
// list_active_agents and set_thread_note, offered as the surface named
// "collab". The tools sit on the engine's agent operations (Agents); the
// package does not import the engine, so the engine's own tests can offer
// these tools too.
package collab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// MsgModelsUpdating is seed 000's retryable error while the model list is
// unavailable.
const MsgModelsUpdating = "Models are being updated; try spawn_agent again in a moment."

// spawnError words the engine's spawn refusals for spawn_agent (the
// engine's own texts name no tool): the max_threads limit as Codex's
// "collab spawn failed: agent thread limit reached (max N)" plus how this
// surface frees a slot, seed 000's models-updating text, and the
// working_directory refusals under spawn_agent's name.
func spawnError(err error) (tools.Result, bool) {
	var lim interface{ ThreadLimit() (int, int) }
	var upd interface{ ModelsUpdating() }
	var wd interface{ WorkdirRefusal() string }
	switch {
	case errors.As(err, &lim):
		active, maxThreads := lim.ThreadLimit()
		return tools.Errorf("collab spawn failed: agent thread limit reached (max %d): %d sub-agents are running or pending (agents.max_threads); wait for one to finish, or close_agent an idle one, to free a slot", maxThreads, active), true
	case errors.As(err, &upd):
		return tools.Errorf("%s", MsgModelsUpdating), true
	case errors.As(err, &wd):
		return tools.Errorf("spawn_agent %s", wd.WorkdirRefusal()), true
	}
	return tools.Result{}, false
}

// Name is the surface's name in agents.surface.
const Name = "collab"

// Agents is what the tools ask of the engine (*engine.Engine implements
// it). Every call acts for the calling thread; ids resolve only in its own
// session tree.
type Agents interface {
	Spawn(ctx context.Context, caller protocol.ThreadID, r protocol.SpawnRequest) (protocol.ThreadInfo, error)
	Send(caller, id protocol.ThreadID, message string, items []protocol.InputItem, interrupt bool) error
	WaitAgents(ctx context.Context, caller protocol.ThreadID, ids []protocol.ThreadID, timeoutMS *int64) (map[protocol.ThreadID]protocol.AgentStatus, bool, error)
	ResumeAgent(caller, id protocol.ThreadID) (protocol.AgentStatus, error)
	CloseAgent(caller, id protocol.ThreadID) (protocol.AgentStatus, error)
	SetNote(caller, id protocol.ThreadID, note string) (string, error)
	ListActive(caller protocol.ThreadID, r protocol.ListActiveRequest) ([]protocol.ActiveAgent, error)
	Info(id protocol.ThreadID) (protocol.ThreadInfo, bool)
	Templates() *templates.Catalog
}

// Surface is the collab surface of one engine.
type Surface struct {
	a     Agents
	tools []tools.Tool
}

// New builds the surface over a.
func New(a Agents) *Surface {
	s := &Surface{a: a}
	// Each schema is generated from the struct its handler decodes, so
	// the two cannot drift apart.
	defs := []struct {
		name, desc string
		params     any
		run        func(context.Context, *tools.Env, json.RawMessage) tools.Result
		ignored    []string // arguments models send by habit (tools.HabitArgs)
	}{
		// Codex's spawn_agent takes a service_tier; grove has none to pick.
		{"spawn_agent", spawnDesc, spawnArgs{}, s.spawn, []string{"service_tier"}},
		{"send_input", sendInputDesc, sendInputArgs{}, s.sendInput, nil},
		{"wait", waitDesc, waitArgs{}, s.wait, nil},
		{"resume_agent", resumeDesc, idArg{}, s.resume, nil},
		{"close_agent", closeDesc, idArg{}, s.close, nil},
		{"list_agents", listAgentsDesc, listAgentsArgs{}, s.listAgents, nil},
		{"list_active_agents", listActiveDesc, listActiveArgs{}, s.listActive, nil},
		{"set_thread_note", setNoteDesc, setNoteArgs{}, s.setNote, nil},
	}
	for _, d := range defs {
		spec := model.ToolSpec{Name: d.name, Description: d.desc, Parameters: schema.MustObject(d.params)}
		s.tools = append(s.tools, &tool{spec: spec, run: d.run, ignored: d.ignored, spawns: d.name == "spawn_agent"})
	}
	return s
}

// Name implements engine.Surface.
func (s *Surface) Name() string { return Name }

// Tools implements engine.Surface.
func (s *Surface) Tools() []tools.Tool { return s.tools }

// Instructions is the prompt section for these tools.
func (s *Surface) Instructions() string { return Instructions }

// Instructions is the delegation section for seed 000's tools.
const Instructions = `# Working with sub-agents
- When the task splits into independent parts, spawn_agent with an agent_type from list_agents (explorer to investigate read-only, worker to implement). Give each a self-contained message: the goal, the files involved, the constraints, and what to report back.
- Use wait to collect results (it returns as soon as one agent finishes); send_input to follow up; close_agent when an agent's work is done. Keep your tree small: every agent costs time and tokens.
- Check what sub-agents report before you rely on it.`

type tool struct {
	spec    model.ToolSpec
	run     func(ctx context.Context, env *tools.Env, args json.RawMessage) tools.Result
	ignored []string
	spawns  bool // spawn_agent: each call starts a sub-agent
}

func (t *tool) Spec() model.ToolSpec { return t.spec }

// Kind implements tools.Kinded.
func (t *tool) Kind() protocol.ToolKind { return protocol.ToolKindCollab }

// SpawnsAgent implements tools.Spawner: spawn_agent's slots are reserved
// in call order.
func (t *tool) SpawnsAgent(json.RawMessage) bool { return t.spawns }

// IgnoredArgs implements tools.HabitArgs.
func (t *tool) IgnoredArgs() []string { return t.ignored }

func (t *tool) Run(ctx context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	return t.run(ctx, env, args)
}

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

// toolError words an engine error as tool's answer: a refusal names the
// rule, an unknown id points at list_active_agents.
func toolError(tool string, err error) tools.Result {
	var nf interface{ AgentNotFound() }
	var no interface{ AgentNotOwned() }
	var cl interface{ AgentClosed() }
	var closing interface{ ClosingAgent() protocol.ThreadID }
	switch {
	case errors.As(err, &closing):
		return tools.Errorf("%s: agent %s is shutting down; try resume_agent again in a moment", tool, closing.ClosingAgent())
	case errors.As(err, &no):
		return tools.Errorf("%s refused: %v", tool, err)
	case errors.As(err, &nf):
		return tools.Errorf("%s: %v (see list_active_agents)", tool, err)
	case errors.As(err, &cl):
		return tools.Errorf("%s: %v; call resume_agent first", tool, err)
	}
	return tools.Errorf("%s: %v", tool, err)
}
