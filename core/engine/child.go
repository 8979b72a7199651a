package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// ChildSpec is a sub-agent as a surface defines it (SpawnChild): the
// engine's spawn (depth and thread limits, rollout, tree, observer) with
// the surface's own instructions, tools and limits.
type ChildSpec struct {
	Caller protocol.ThreadID
	CallID string
	// Prompt is the first input, sent as the caller's message.
	Prompt string
	// AgentType labels the agent in the tree and the rollout.
	AgentType   string
	Description string
	// Model overrides the caller's model ("" inherits); Effort likewise
	// the reasoning effort.
	Model  string
	Effort string
	// Instructions are the role prompt (the engine adds its base prompt,
	// the project docs and the environment).
	Instructions string
	// ExactInstructions makes Instructions the child's whole system
	// prompt, with nothing of grove's around it (seed 004 §3.4.2).
	ExactInstructions bool
	// PlainPrompt sends Prompt as a plain user message, without the
	// "[message from agent …]" label other agents' messages carry (seed
	// 004: the executor's Message::user(prompt)).
	PlainPrompt bool
	// WorkingDirectory is the child's working directory ("" = the
	// caller's), approved like spawn_agent's working_directory.
	WorkingDirectory string
	// History is put before Prompt (a forked parent context).
	History []protocol.Item
	// Surface is the child's own delegation surface ("" = none).
	Surface string
	// NewID names the child (nil: the engine's UUIDv7 ids); a surface whose
	// seed fixes the id format gives it (Task: agent-<uuid v4>).
	NewID func() protocol.ThreadID
	// Describe words the parent's background event for a status of the
	// child ("" or nil: the engine's seed-000 wording); a surface gives
	// its seed's (seed 003: "child session {id} completed").
	Describe func(id protocol.ThreadID, st protocol.AgentStatus) string
	// Allow filters the engine's tools (nil = all).
	Allow func(name string) bool
	// Blocked words the answer to a call of a tool Allow refuses (nil:
	// the registry's own message); a surface gives its seed's text.
	Blocked func(name string) string
	// Tools are tools of this thread only (complete_task); Allow does not
	// apply to them.
	Tools []tools.Tool
	// EndTurnTools end the turn after a successful call (complete_task).
	EndTurnTools []string
	Limits       Limits
	// Activity: the parent's thread gets seed 004's SubagentActivity
	// events about this child (started, steps, tool calls, grace, end).
	Activity bool
	// Temperature and TopP go into every model request of the child (a
	// definition's modelConfig; nil = the provider's default).
	Temperature, TopP *float64
	ReadOnly          bool
	Note              string
	// NonInteractive: the child and its subtree never ask the user; their
	// approvals are decided by the configured policy as in grove exec
	// (seed 003's sub-sessions).
	NonInteractive bool
}

// Limits bound one turn of a child. On reaching MaxSteps model calls or
// MaxTime, the child gets one grace step: GracePrompt(reason) is added as
// a user message and only GraceTools are offered, within Grace.
type Limits struct {
	MaxSteps int
	MaxTime  time.Duration
	// Grace is the grace step's time: 0 is 60 s, NoGrace none at all.
	Grace       time.Duration
	GracePrompt func(reason string) string
	GraceTools  []string
	// GraceOnEnd: a reply without tool calls that has not called an
	// EndTurnTools tool starts the grace step too (reason
	// LimitNoCompletion) instead of ending the turn.
	GraceOnEnd bool
}

// NoGrace as Limits.Grace gives the grace step no time (a definition's
// `gracePeriodSeconds: 0`).
const NoGrace time.Duration = -1

// Limit reasons (RunReport.LimitHit).
const (
	LimitMaxSteps = "max_turns"
	LimitTimeout  = "timeout"
	// LimitNoCompletion: the child ended its turn, and then its grace
	// step, without calling an end-turn tool.
	LimitNoCompletion = "no_completion"
)

// childRun is what SpawnChild adds to a thread.
type childRun struct {
	allow    func(string) bool
	own      *tools.Registry
	endTurn  map[string]bool
	blocked  func(string) string
	activity bool
	// temperature and topP are the child's sampling settings.
	temperature, topP *float64
	describe          func(protocol.ThreadID, protocol.AgentStatus) string
	limits            Limits
	// nonInteractive: approvals of this subtree never reach the user.
	nonInteractive bool
}

// RunReport is what a surface reports about a child's last turn.
type RunReport struct {
	Status protocol.AgentStatus
	// Steps counts model calls in the last turn, ToolCalls tool calls in
	// every turn.
	Steps     int
	ToolCalls int
	Usage     protocol.TokenUsage
	// LimitHit is LimitMaxSteps or LimitTimeout when the last turn reached
	// one ("" otherwise).
	LimitHit string
	// InStep: the time limit (LimitHit LimitTimeout) or the interrupt that
	// stopped the turn came while a step ran rather than between two
	// steps: seed 004 §3.4.2's `Turn timed out` and `Subagent cancelled
	// during turn` against its loop-top `Subagent timed out after N
	// seconds` and `Subagent execution was cancelled`.
	InStep      bool
	LastMessage string
	AgentType   string
	StartedAt   time.Time
	// StatusAt is when the current status began (a final one: when the
	// work ended).
	StatusAt time.Time
}

func applyChildSpec(spec *threadSpec, c *ChildSpec) {
	if c.NewID != nil {
		spec.id = c.NewID()
	}
	spec.agentType = c.AgentType
	spec.description = c.Description
	spec.rolePrompt = c.Instructions
	spec.exactInstructions = c.ExactInstructions
	spec.surface = c.Surface
	spec.history = append([]protocol.Item(nil), c.History...)
	if c.ReadOnly {
		spec.sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	}
	run := childRun{allow: c.Allow, blocked: c.Blocked, describe: c.Describe, temperature: c.Temperature, topP: c.TopP, activity: c.Activity, limits: c.Limits, endTurn: map[string]bool{}, nonInteractive: c.NonInteractive}
	for _, n := range c.EndTurnTools {
		run.endTurn[n] = true
	}
	spec.run = run
}

// SpawnChild starts a sub-agent of spec.Caller on spec.Prompt and returns
// its id at once.
func (e *Engine) SpawnChild(ctx context.Context, spec ChildSpec) (protocol.ThreadID, error) {
	caller := e.thread(spec.Caller)
	if caller == nil {
		return "", fmt.Errorf("calling thread %s is not part of this session", spec.Caller)
	}
	if strings.TrimSpace(spec.Prompt) == "" {
		return "", errors.New("empty prompt")
	}
	// The thread's own tools are compiled before anything is created: a
	// broken output schema refuses the spawn.
	own, err := ownRegistry(spec.Tools)
	if err != nil {
		return "", err
	}
	items := []protocol.Item{protocol.UserMessage(spec.Prompt)}
	if !spec.PlainPrompt {
		items = fromAgent(caller.id, items)
	}
	child, err := e.spawn(ctx, spawnRequest{
		caller: caller, callID: spec.CallID, items: items, workdir: spec.WorkingDirectory,
		agentType: spec.AgentType, model: strings.TrimSpace(spec.Model), effort: strings.TrimSpace(spec.Effort), note: noteOrNil(spec.Note), child: &spec,
		ownTools: own,
	})
	if err != nil {
		return "", err
	}
	return child.id, nil
}

func noteOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ContinueChild gives a finished agent a new prompt (Task's resume): an
// agent of the caller's own tree continues where it stopped; a closed one
// is reopened. An id from anywhere else (another session on this machine,
// a sibling's tree) is refused: its transcript is not the caller's to
// read, and it would run under another session's grants (seed 004 §3.6.3
// keeps transcripts per session; resuming across sessions is its future
// work). rebind (may be nil) gives it a surface's run settings again
// before the prompt arrives. An agent still working is refused.
func (e *Engine) ContinueChild(callerID, id protocol.ThreadID, prompt string, rebind *ChildSpec) error {
	caller := e.thread(callerID)
	if caller == nil {
		return fmt.Errorf("calling thread %s is not part of this session", callerID)
	}
	if strings.TrimSpace(prompt) == "" {
		return errors.New("empty prompt")
	}
	t, err := e.continuable(caller, id)
	if err != nil {
		return err
	}
	if t.isClosed() {
		if _, err := e.resumeThread(id); err != nil {
			return err
		}
	}
	if rebind != nil {
		if err := e.Rebind(id, *rebind); err != nil {
			return err
		}
	}
	if !t.deliver(false, fromAgent(caller.id, []protocol.Item{protocol.UserMessage(prompt)})...) {
		return fmt.Errorf("agent %s is closing; try again once it has closed", id)
	}
	return nil
}

// CheckContinue reports whether ContinueChild(callerID, id, …) would take
// the agent (a surface checks before it records a new run).
func (e *Engine) CheckContinue(callerID, id protocol.ThreadID) error {
	caller, err := e.callerThread(callerID)
	if err != nil {
		return err
	}
	_, err = e.continuable(caller, id)
	return err
}

// continuable resolves a resume target inside caller's own tree.
func (e *Engine) continuable(caller *Thread, id protocol.ThreadID) (*Thread, error) {
	t := e.thread(id)
	if t == nil || t == caller || !e.mayControl(caller, t) {
		return nil, TranscriptNotFoundError{ID: id}
	}
	if st, _ := t.Status(); st.IsActive() {
		return nil, fmt.Errorf("agent %s is still running; wait for it to finish before resuming it", id)
	}
	return t, nil
}

// WaitFinal blocks until the agent is final or interrupted, ctx ends or
// timeout passes (timedOut).
func (e *Engine) WaitFinal(ctx context.Context, id protocol.ThreadID, timeout time.Duration) (protocol.AgentStatus, bool, error) {
	st, timedOut, err := e.waitAny(ctx, []protocol.ThreadID{id}, timeout)
	if err != nil || timedOut {
		return protocol.AgentStatus{}, timedOut, err
	}
	return st[id], false, nil
}

// Report describes a thread's last turn (ok=false for an unknown id).
func (e *Engine) Report(id protocol.ThreadID) (RunReport, bool) {
	t := e.thread(id)
	if t == nil {
		return RunReport{}, false
	}
	st, at := t.Status()
	t.mu.Lock()
	defer t.mu.Unlock()
	return RunReport{
		Status: st, StatusAt: at, Steps: t.turn.steps, ToolCalls: t.turn.toolCalls, Usage: t.turn.usage,
		LimitHit: t.turn.limitHit, InStep: t.turn.inStep, LastMessage: t.turn.lastMessage, AgentType: t.agentType, StartedAt: t.createdAt,
	}, true
}

// Info returns a thread's snapshot (ok=false for an unknown id).
func (e *Engine) Info(id protocol.ThreadID) (protocol.ThreadInfo, bool) {
	t := e.thread(id)
	if t == nil {
		return protocol.ThreadInfo{}, false
	}
	return t.info(), true
}

// Interrupt stops an agent's work and its subtree's, if caller may.
func (e *Engine) Interrupt(callerID, id protocol.ThreadID) error {
	caller, t := e.thread(callerID), e.thread(id)
	if caller == nil || t == nil {
		return fmt.Errorf("no agent %s in this session", id)
	}
	if !e.mayControl(caller, t) {
		return notOwnedError("interrupt", id)
	}
	e.interruptTree(t)
	return nil
}

// IsChildOf reports whether id is a descendant of caller (or caller).
func (e *Engine) IsChildOf(callerID, id protocol.ThreadID) bool {
	caller, t := e.thread(callerID), e.thread(id)
	return caller != nil && t != nil && e.isDescendant(t, caller)
}

// toolSpecs are the specs the thread's model sees: the registry's tools
// its policy allows, then its own tools.
func (t *Thread) toolSpecs() []model.ToolSpec {
	specs := t.e.tools.Specs(t.toolAllowed)
	t.mu.Lock()
	own := t.run.own
	t.mu.Unlock()
	if own != nil {
		specs = append(specs, own.Specs(nil)...)
	}
	return specs
}

// Rebind gives a child of this session a surface's run settings again
// (Task's resume of an adopted or reopened agent): filter, own tools,
// end-turn tools and limits. Refused while the agent works.
func (e *Engine) Rebind(id protocol.ThreadID, spec ChildSpec) error {
	t := e.thread(id)
	if t == nil {
		return fmt.Errorf("no agent %s in this session", id)
	}
	if st, _ := t.Status(); st.IsActive() {
		return fmt.Errorf("agent %s is still running", id)
	}
	own, err := ownRegistry(spec.Tools)
	if err != nil {
		return err
	}
	var ts threadSpec
	applyChildSpec(&ts, &spec)
	ts.run.own = own
	t.mu.Lock()
	t.run = ts.run
	t.mu.Unlock()
	specs := t.toolSpecs()
	t.mu.Lock()
	t.specs = specs
	t.mu.Unlock()
	return nil
}

// ownRegistry compiles a thread's own tools (nil when there are none).
func ownRegistry(list []tools.Tool) (*tools.Registry, error) {
	if len(list) == 0 {
		return nil, nil
	}
	own := tools.NewRegistry()
	for _, t := range list {
		if err := own.Register(t); err != nil {
			return nil, err
		}
	}
	// A surface's own tools carry schemas made for this agent (Task's
	// output schema): a broken one refuses the agent now, not at its
	// first call.
	if err := own.CheckSchemas(); err != nil {
		return nil, err
	}
	return own, nil
}

// enterGrace starts the grace step: the limit is recorded, the grace
// prompt joins the conversation, and the step gets its own deadline.
func (t *Thread) enterGrace(ctx context.Context, turnID string, lim Limits, reason string) (context.Context, context.CancelFunc) {
	t.mu.Lock()
	t.turn.limitHit = reason
	t.mu.Unlock()
	msg := "You have reached a limit. Give your best answer now; no other tool is available."
	if lim.GracePrompt != nil {
		msg = lim.GracePrompt(reason)
	}
	it := protocol.UserMessage(msg)
	t.appendHistory(it)
	t.publish(inputEvent(t.id, turnID, it, "", nil))
	grace := lim.Grace
	switch {
	case grace == 0:
		grace = 60 * time.Second
	case grace < 0:
		// NoGrace: the step is asked for and its time is already up, as
		// seed 004's zero `tokio::time::timeout` leaves it.
		grace = 0
	}
	t.e.activity(t, protocol.ActivityGracePeriodStart, map[string]any{"reason": reason, "grace_seconds": int(grace.Seconds())})
	return context.WithTimeout(ctx, grace)
}

// onlyTools keeps the specs named in only.
func onlyTools(specs []model.ToolSpec, only map[string]bool) []model.ToolSpec {
	var out []model.ToolSpec
	for _, s := range specs {
		if only[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// effectiveTools lists the registry tools the thread may use.
func (t *Thread) effectiveTools() []string {
	var out []string
	for _, n := range t.e.tools.Names() {
		if t.toolAllowed(n) {
			out = append(out, n)
		}
	}
	return out
}
