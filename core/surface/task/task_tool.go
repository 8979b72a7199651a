package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// taskArgs are Task's parameters (seed 004 §3.6.1); the schema the model
// sees is generated from this struct.
type taskArgs struct {
	SubagentType    string         `json:"subagent_type" required:"true" jsonschema:"The type of subagent to spawn (e.g., 'Explore', 'Plan')"`
	Prompt          string         `json:"prompt" required:"true" jsonschema:"The task/prompt for the subagent to execute"`
	Description     string         `json:"description" required:"true" jsonschema:"A short (3-5 word) description of the task (REQUIRED)"`
	Model           string         `json:"model" jsonschema:"Optional model override: 'sonnet', 'haiku', 'opus', 'inherit'"`
	RunInBackground bool           `json:"run_in_background" jsonschema:"If true, run async and return immediately"`
	Resume          string         `json:"resume" jsonschema:"Optional agent ID to resume from. If provided, the agent continues from the previous execution transcript."`
	Inputs          map[string]any `json:"inputs" jsonschema:"Values for the agent's declared inputs (see its inputs in this tool's description)."`
}

type taskTool struct {
	s    *Surface
	spec model.ToolSpec
}

func newTaskTool(s *Surface) *taskTool {
	return &taskTool{s: s, spec: model.ToolSpec{Name: ToolTask, Description: taskDescription(s.agents), Parameters: schema.MustObject(taskArgs{})}}
}

func (t *taskTool) Spec() model.ToolSpec { return t.spec }

// Kind implements tools.Kinded.
func (t *taskTool) Kind() protocol.ToolKind { return protocol.ToolKindCollab }

// seedTaskDescription is seed 004 §3.7's TASK_TOOL description.
const seedTaskDescription = `Spawns a specialized subagent for focused, autonomous tasks.

Available subagent types:
- Explore: Fast codebase exploration (read-only)
- Plan: Implementation planning and architecture design

Use this when a task requires:
- Focused exploration without context pollution
- Independent research or analysis
- Parallel work on separate concerns

The subagent runs in isolated context with restricted tools.

Agents can be resumed using the ` + "`resume`" + ` parameter by passing the agent ID from a previous invocation. When resumed, the agent continues with its full previous context preserved.`

// taskDescription is the seed's description, then (grove's addition) the
// other agent types this session has, with when to use them and their
// declared inputs, so the model can pick them.
func taskDescription(r *Registry) string {
	var b strings.Builder
	b.WriteString(seedTaskDescription)
	extra := false
	for _, a := range r.agents {
		if a.Builtin && (a.Type == "Explore" || a.Type == "Plan") && len(a.Inputs) == 0 {
			continue
		}
		if !extra {
			b.WriteString("\n\nMore subagent types (pass values for declared inputs in inputs):\n")
			extra = true
		}
		fmt.Fprintf(&b, "- %s: %s", a.Type, oneLine(a.WhenToUse))
		if len(a.Inputs) > 0 {
			fmt.Fprintf(&b, " Inputs: %s.", inputList(a.Inputs))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no description)"
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// SpawnsAgent implements tools.Spawner: a Task call starts a sub-agent
// unless it resumes one (arguments that do not decode start nothing).
func (t *taskTool) SpawnsAgent(raw json.RawMessage) bool {
	var a taskArgs
	return json.Unmarshal(raw, &a) == nil && strings.TrimSpace(a.Resume) == ""
}

func (t *taskTool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	s := t.s
	var a taskArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Errorf("Task: invalid arguments: %v", err)
	}
	a.SubagentType, a.Description = strings.TrimSpace(a.SubagentType), strings.TrimSpace(a.Description)
	if strings.TrimSpace(a.Prompt) == "" {
		return tools.Errorf("Task: prompt is empty; say what the agent should do")
	}
	agent, ok := s.agents.Lookup(a.SubagentType)
	if !ok {
		return tools.Errorf("%s", s.agents.unknownTypeError(a.SubagentType))
	}
	spec, err := s.childSpec(env, agent, a)
	if err != nil {
		return tools.Errorf("Task: %v", err)
	}
	start := time.Now()
	if resume := strings.TrimSpace(a.Resume); resume != "" {
		// Seed 004 §3.6.3: a new executor (a new agent-<uuid>) continues
		// the previous agent's transcript.
		prev := protocol.ThreadID(resume)
		if err := s.e.CheckContinue(env.ThreadID, prev); err != nil {
			return tools.Errorf("Subagent execution failed: %v", err)
		}
		spec.History = s.e.History(prev)
	}
	id, err := s.e.SpawnChild(ctx, spec)
	if err != nil {
		if a.Resume != "" {
			return tools.Errorf("Subagent execution failed: %s", engineMessage(err))
		}
		return tools.Errorf("Task: %s", engineMessage(err))
	}
	s.results.begin(id, run{agent: agent, description: a.Description, startedAt: start.UnixNano(), background: a.RunInBackground}, false)
	if a.RunInBackground {
		out := map[string]any{"status": "async_launched", "agent_id": id, "description": a.Description}
		return jsonResult(out, false, fmt.Sprintf("%s: %s (background)", agent.Type, a.Description), id)
	}
	// Synchronous: the agent's own limits end it; the wait outlasts them.
	st, timedOut, err := s.e.WaitFinal(ctx, id, agent.MaxTime+agent.Grace+time.Minute)
	if err != nil || timedOut {
		_ = s.e.Interrupt(env.ThreadID, id)
		if err == nil {
			st, _, _ = s.e.WaitFinal(context.WithoutCancel(ctx), id, 10*time.Second)
		}
	}
	o := s.outcome(id)
	if err != nil || st.Kind == protocol.StatusInterrupted {
		rep, _ := s.e.Report(id)
		o.Status, o.Result = StatusAborted, abortedText(rep)
		o.Duration = time.Since(start)
	}
	out := map[string]any{
		"status": o.Status, "result": o.Result, "turns_used": o.Turns, "duration_seconds": durationSeconds(o.Duration),
		"agent_id": id, "total_tool_use_count": o.ToolCalls, "total_tokens": o.Tokens,
	}
	return jsonResult(out, o.Status != StatusGoal, fmt.Sprintf("%s: %s → %s (%d turns, %d tokens)", agent.Type, a.Description, o.Status, o.Turns, o.Tokens), id)
}

// engineMessage words the engine's refusals in this surface's tools: the
// limit is waited out with TaskOutput (Task has no close_agent), a closing
// agent is resumed with Task's resume.
func engineMessage(err error) string {
	var lim *engine.MaxThreadsError
	var closing *engine.AgentClosingError
	switch {
	case errors.As(err, &lim):
		return fmt.Sprintf("agent thread limit reached (max %d): %d sub-agents are running or pending (agents.max_threads); wait for a background agent with TaskOutput (block: true) to free a slot, or do this part yourself", lim.Max, lim.Active)
	case errors.As(err, &closing):
		return fmt.Sprintf("agent %s is shutting down; call Task with resume: %q again in a moment", closing.ID, closing.ID)
	}
	return err.Error()
}

// childSpec turns a Task call into the engine's ChildSpec.
func (s *Surface) childSpec(env *tools.Env, a *Agent, args taskArgs) (engine.ChildSpec, error) {
	vars, err := checkInputs(a.Inputs, args.Inputs)
	if err != nil {
		return engine.ChildSpec{}, err
	}
	vars["cwd"] = env.Cwd
	if a.BaseDir != "" {
		vars["cwd"] = filepath.Join(env.Cwd, a.BaseDir)
		if filepath.IsAbs(a.BaseDir) {
			vars["cwd"] = filepath.Clean(a.BaseDir)
		}
	}
	vars["prompt"] = args.Prompt
	vars["description"] = args.Description
	vars["agent_type"] = a.Type
	model := resolveModel(args.Model, a.Model, s.opts.Getenv, s.opts.ModelAliases)
	complete, err := newCompleteTask(a, s.results)
	if err != nil {
		return engine.ChildSpec{}, err
	}
	spec := engine.ChildSpec{
		Caller: env.ThreadID, CallID: env.CallID,
		Prompt:    firstMessage(a, args.Prompt, vars),
		AgentType: a.Type, Description: args.Description, Note: args.Description,
		// Seed 004 §3.4.2: the system prompt is the definition's (or "You
		// are a helpful assistant."), substituted, and nothing else; the
		// task is a plain user message.
		Model: model, Instructions: substitute(a.Prompt, vars), ExactInstructions: true, PlainPrompt: true,
		WorkingDirectory: a.BaseDir,
		Allow:            toolFilter(a, args.RunInBackground, s.opts.TrustCustomAgents),
		Blocked:          blockedMessage,
		NewID:            newAgentID,
		Tools:            ownTools(a, complete, args.RunInBackground, s.opts.TrustCustomAgents),
		EndTurnTools:     []string{ToolCompleteTask},
		Limits: engine.Limits{
			MaxSteps: a.MaxTurns, MaxTime: a.MaxTime, Grace: engineGrace(a.Grace),
			GracePrompt: gracePrompt, GraceTools: []string{ToolCompleteTask}, GraceOnEnd: true,
		},
		ReadOnly: a.ReadOnly, Temperature: a.Temperature, TopP: a.TopP,
		Activity:       true,
		NonInteractive: a.neverAsks(),
	}
	if a.ForkContext && args.Resume == "" {
		spec.History = forkHistory(s.e.History(env.ThreadID))
	}
	if args.Resume == "" {
		spec.History = append(spec.History, fewShot(a.InitialMessages, vars)...)
	}
	return spec, nil
}

// newAgentID is seed 004 §3.4.1's agent id: agent-<uuid v4>.
func newAgentID() protocol.ThreadID { return protocol.ThreadID("agent-" + uuid.NewString()) }

// blockedMessage is seed 004 §3.4.2's answer to a call of a tool the
// agent's filter refuses.
func blockedMessage(name string) string {
	return fmt.Sprintf("Tool '%s' is not available in this context", name)
}

// Seed 004 §3.4.2's results of a cancelled run: cancelled at the loop's
// top (between two turns, or before the first) or during a turn.
const (
	AbortedText       = "Subagent execution was cancelled"
	AbortedInTurnText = "Subagent cancelled during turn"
	// TurnTimedOutText is the result of a run whose time limit struck
	// during a turn; one that struck between two turns says `Subagent
	// timed out after N seconds`.
	TurnTimedOutText = "Turn timed out"
)

// abortedText is the result of an aborted run, by where the cancellation
// found it.
func abortedText(rep engine.RunReport) string {
	if rep.InStep {
		return AbortedInTurnText
	}
	return AbortedText
}

// Result statuses (seed 004 §3.4.2).
const (
	StatusGoal     = "goal"
	StatusTimeout  = "timeout"
	StatusMaxTurns = "max_turns"
	StatusAborted  = "aborted"
	StatusError    = "error"
	// StatusNoCompleteTask: the agent ended without calling complete_task
	// (after its grace step).
	StatusNoCompleteTask = "error_no_complete_task_call"
)

// outcome is a finished run in Task's terms.
type outcome struct {
	Status string
	// Result is text, or the typed value complete_task submitted.
	Result    any
	Turns     int
	ToolCalls int
	Tokens    int64
	Duration  time.Duration
}

// outcome reads an agent's run: complete_task's value if it was called,
// else what the agent last said, with the limit it ran into.
func (s *Surface) outcome(id protocol.ThreadID) outcome {
	rep, _ := s.e.Report(id)
	r, _ := s.results.get(id)
	o := outcome{Turns: rep.Steps, ToolCalls: rep.ToolCalls, Tokens: rep.Usage.TotalTokens}
	if o.Tokens == 0 {
		o.Tokens = rep.Usage.InputTokens + rep.Usage.OutputTokens
	}
	if r.startedAt != 0 {
		// The time it ran: to its final status, or until now when it has
		// none yet (an aborted run read as it is being stopped).
		end := time.Now()
		if rep.Status.IsFinal() && rep.StatusAt.After(time.Unix(0, r.startedAt)) {
			end = rep.StatusAt
		}
		o.Duration = max(end.Sub(time.Unix(0, r.startedAt)), 0)
	}
	partial := rep.Status.Message
	if partial == "" {
		partial = rep.LastMessage
	}
	var maxTime time.Duration
	maxTurns := 0
	if r.agent != nil {
		maxTime, maxTurns = r.agent.MaxTime, r.agent.MaxTurns
	}
	// Seed 004 §3.4.2's result texts for the runs that did not reach
	// their goal (the grace step keeps the original status and text).
	switch {
	case r.completed:
		o.Status, o.Result = StatusGoal, r.result
	case rep.Status.Kind == protocol.StatusErrored:
		o.Status, o.Result = StatusError, "Subagent error: Model error: "+rep.Status.Message
	case rep.Status.Kind == protocol.StatusInterrupted || rep.Status.Kind == protocol.StatusShutdown:
		o.Status, o.Result = StatusAborted, abortedText(rep)
	case rep.LimitHit == engine.LimitMaxSteps:
		o.Status, o.Result = StatusMaxTurns, fmt.Sprintf("Subagent reached max turns limit (%d)", maxTurns)
	case rep.LimitHit == engine.LimitTimeout && rep.InStep:
		o.Status, o.Result = StatusTimeout, TurnTimedOutText
	case rep.LimitHit == engine.LimitTimeout:
		o.Status, o.Result = StatusTimeout, fmt.Sprintf("Subagent timed out after %d seconds", int64(maxTime.Seconds()))
	case rep.LimitHit == engine.LimitNoCompletion:
		o.Status, o.Result = StatusNoCompleteTask, partial
	default:
		// An agent the user or a close stopped mid-reply, or one ended by
		// its limits without its grace step (an error there).
		o.Status, o.Result = StatusGoal, partial
	}
	return o
}

func jsonResult(v any, isError bool, summary string, ids ...protocol.ThreadID) tools.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Errorf("encode result: %v", err)
	}
	return tools.Result{Output: string(b), IsError: isError, Summary: summary, AgentIDs: ids}
}

// ownTools are the tools a Task agent gets beyond the engine's: complete_task,
// and seed 004's glob_files when its tool list names it (Explore's and
// Plan's do, §4). glob_files is in neither core tool set, so the engine's
// filter never sees it; the agent's own filter still applies (a
// disallowedTools entry removes it).
func ownTools(a *Agent, complete tools.Tool, background, trustCustom bool) []tools.Tool {
	own := []tools.Tool{complete}
	if slices.Contains(a.Allow, tools.GlobFilesName) && toolFilter(a, background, trustCustom)(tools.GlobFilesName) {
		own = append(own, tools.GlobFiles())
	}
	return own
}

// durationSeconds is seed 004's `duration_seconds`: `duration.as_secs_f32()`,
// a 32-bit float, so its JSON carries float32's shortest digits (1.2345679,
// not 1.234567891).
func durationSeconds(d time.Duration) float32 { return float32(d.Seconds()) }

// engineGrace is the engine's grace time for an agent's: a definition's
// `gracePeriodSeconds: 0` is no time at all (seed 004 §3.6 runs the step
// under a zero timeout), where the engine's 0 means its default.
func engineGrace(g time.Duration) time.Duration {
	if g <= 0 {
		return engine.NoGrace
	}
	return g
}
