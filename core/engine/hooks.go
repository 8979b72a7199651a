package engine

import (
	"context"
	"strings"

	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// The engine's side of hooks (core/hooks): one call per event, each a
// method here, so the turn loop and the tool path stay as they were.
// Options.Hooks nil means no hooks; every method then returns at once.

// maxStopContinuations bounds how often Stop/SubagentStop hooks may keep
// one turn going (a hook that always blocks would loop forever).
const maxStopContinuations = 8

// hookContext describes t to its hooks.
func (t *Thread) hookContext(turnID string) hooks.Context {
	t.mu.Lock()
	c := hooks.Context{
		SessionID: string(t.id), TurnID: turnID, TranscriptPath: t.life.rolloutPath,
		Cwd: t.cwd, Model: t.modelName,
		PermissionMode: hooks.PermissionMode(string(t.e.ApprovalPolicy()), string(t.sandbox.Mode)),
	}
	t.mu.Unlock()
	if t.parentID != "" {
		c.AgentID, c.AgentType = string(t.id), t.hookAgentType()
	}
	return c
}

func (t *Thread) hookAgentType() string {
	if t.agentType == "" {
		return "default"
	}
	return t.agentType
}

// hookNotes shows the user what hooks said that was not a decision:
// failures, timeouts, invalid output, system messages. Never silent.
func (t *Thread) hookNotes(turnID string, o hooks.Outcome) {
	for _, n := range o.Notes {
		t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: n}))
	}
}

// toolHooks are the hooks the orchestrator runs around t's tool calls
// (tools.Hooks); nil without hooks.
func (t *Thread) toolHooks() *tools.Hooks {
	if t.e.opts.Hooks == nil {
		return nil
	}
	return &tools.Hooks{
		Before: t.preToolUse,
		After:  t.postToolUse,
		Permission: func(ctx context.Context, _ *tools.Env, req protocol.ApprovalRequest) (protocol.ReviewDecision, bool) {
			return t.permissionRequest(ctx, req)
		},
	}
}

// preToolUse runs PreToolUse for c. A non-nil result blocks the call (the
// model reads why); otherwise c's arguments may have been rewritten by an
// allowing hook.
func (t *Thread) preToolUse(ctx context.Context, env *tools.Env, c *tools.Call) *tools.Result {
	r := t.e.opts.Hooks
	turnID := env.TurnID
	tool := hooks.ToolFor(c.Name, c.ID, c.Args)
	o := r.PreToolUse(ctx, t.hookContext(turnID), tool)
	t.hookNotes(turnID, o)
	if o.Block {
		return &tools.Result{Output: hooks.BlockedOutput(tool, o.Reason), IsError: true}
	}
	if o.UpdatedInput != nil {
		if args, ok := hooks.UpdatedArgs(c.Name, c.Args, o.UpdatedInput); ok {
			c.Args = args
		} else {
			t.hookNotes(turnID, hooks.Outcome{Notes: []string{"PreToolUse hook returned an updatedInput grove cannot apply to " + c.Name + "; the call runs as the model wrote it"}})
		}
	}
	// Context for a call goes with its output (see postToolUse).
	t.pendingToolContext(c.ID, o.Contexts)
	return nil
}

// postToolUse runs PostToolUse once for a call that ran. A blocking
// hook's reason and any additionalContext reach the model with the output.
func (t *Thread) postToolUse(ctx context.Context, env *tools.Env, c tools.Call, res *tools.Result) {
	r := t.e.opts.Hooks
	turnID := env.TurnID
	extra := t.takeToolContext(c.ID)
	tool := hooks.ToolFor(c.Name, c.ID, c.Args)
	o := r.PostToolUse(ctx, t.hookContext(turnID), tool, res.Output)
	t.hookNotes(turnID, o)
	if o.Block {
		extra = append(extra, "PostToolUse hook: "+o.Reason)
	}
	extra = append(extra, o.Contexts...)
	if len(extra) > 0 {
		res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + strings.Join(extra, "\n\n")
	}
}

// pendingToolContext keeps PreToolUse context until the call's output.
func (t *Thread) pendingToolContext(callID string, ctxs []string) {
	if len(ctxs) == 0 {
		return
	}
	t.mu.Lock()
	if t.hookToolCtx == nil {
		t.hookToolCtx = map[string][]string{}
	}
	t.hookToolCtx[callID] = ctxs
	t.mu.Unlock()
}

func (t *Thread) takeToolContext(callID string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.hookToolCtx[callID]
	delete(t.hookToolCtx, callID)
	return c
}

// beforePrompt runs the hooks of a turn's start: SessionStart once for a
// root (startup, or resume for a resumed thread), SubagentStart once for a
// child (in its parent's name), then UserPromptSubmit with the input's
// text. blocked: a hook refused the prompt; it is not given to the model.
// extra is the hooks' context, for the conversation after the prompt.
func (t *Thread) beforePrompt(ctx context.Context, turnID string, input []queuedInput) (blocked bool, extra []protocol.Item) {
	r := t.e.opts.Hooks
	if r == nil {
		return false, nil
	}
	t.mu.Lock()
	first := !t.hooksStarted
	t.hooksStarted = true
	t.mu.Unlock()
	c := t.hookContext(turnID)
	var started hooks.Outcome
	switch {
	case first && t.parentID == "":
		source := "startup"
		if t.source == protocol.SourceResumed {
			source = "resume"
		}
		started = r.SessionStart(ctx, c, source)
	case first:
		started = r.SubagentStart(ctx, t.parentHookContext(turnID), hooks.Subagent{ID: string(t.id), Type: t.hookAgentType(), Parent: string(t.parentID), TranscriptPath: c.TranscriptPath})
	}
	t.hookNotes(turnID, started)
	var text []string
	for _, q := range input {
		text = append(text, q.item.Content)
	}
	o := r.UserPromptSubmit(ctx, c, strings.Join(text, "\n\n"))
	t.hookNotes(turnID, o)
	if o.Block {
		t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: "UserPromptSubmit hook blocked the prompt: " + o.Reason}))
		return true, nil
	}
	for _, c := range append(started.Contexts, o.Contexts...) {
		extra = append(extra, protocol.GroveNotice(c))
	}
	return false, extra
}

// parentHookContext is the parent's context for sub-agent events, which
// fire in the parent's name; a parent gone already leaves the child's.
func (t *Thread) parentHookContext(turnID string) hooks.Context {
	p := t.e.thread(t.parentID)
	if p == nil {
		c := t.hookContext(turnID)
		c.AgentID, c.AgentType = "", ""
		return c
	}
	p.mu.Lock()
	pturn := p.turn.id
	p.mu.Unlock()
	return p.hookContext(pturn)
}

// afterTurn runs Stop (a root) or SubagentStop (a child, in its parent's
// name) when a turn ends. continueWith is non-empty when a hook blocked
// the stop of a completed turn: the turn goes on with it as input.
func (t *Thread) afterTurn(ctx context.Context, turnID string, outcome turnOutcome, last string, continued int) (continueWith string) {
	r := t.e.opts.Hooks
	if r == nil {
		return ""
	}
	var o hooks.Outcome
	if t.parentID == "" {
		o = r.Stop(ctx, t.hookContext(turnID), last, continued > 0)
	} else {
		status := map[turnOutcome]string{outcomeCompleted: "completed", outcomeInterrupted: "interrupted", outcomeErrored: "errored"}[outcome]
		c := t.hookContext(turnID)
		o = r.SubagentStop(ctx, t.parentHookContext(turnID), hooks.Subagent{ID: string(t.id), Type: t.hookAgentType(), Parent: string(t.parentID), TranscriptPath: c.TranscriptPath, Status: status, LastMessage: last}, continued > 0)
	}
	t.hookNotes(turnID, o)
	if !o.Block || outcome != outcomeCompleted || ctx.Err() != nil {
		return ""
	}
	if continued >= maxStopContinuations {
		t.hookNotes(turnID, hooks.Outcome{Notes: []string{"Stop hooks blocked the end of this turn too often; it ends here"}})
		return ""
	}
	return o.Reason
}

// permissionRequest lets PermissionRequest hooks answer an approval
// before anyone is asked; decided is false when none did.
func (t *Thread) permissionRequest(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, bool) {
	r := t.e.opts.Hooks
	if r == nil {
		return "", false
	}
	tool := hooks.Tool{Name: "Bash", Input: map[string]any{"command": req.Command}}
	switch req.Kind {
	case protocol.ApprovalPatch:
		tool = hooks.Tool{Name: "apply_patch", Aliases: []string{"Write", "Edit"}, Input: map[string]any{"command": strings.Join(req.Files, "\n")}}
	case protocol.ApprovalWorkingDir:
		tool = hooks.Tool{Name: "spawn_agent", Aliases: []string{"Agent"}, Input: map[string]any{"working_directory": req.Dir}}
	case protocol.ApprovalExec:
	default:
		tool = hooks.Tool{Name: string(req.Kind), Input: map[string]any{"command": req.Command}}
	}
	t.mu.Lock()
	turnID := t.turn.id
	t.mu.Unlock()
	o := r.PermissionRequest(ctx, t.hookContext(turnID), tool)
	t.hookNotes(turnID, o)
	switch o.Decision {
	case "allow":
		return protocol.DecisionApproved, true
	case "deny":
		t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: "PermissionRequest hook denied: " + o.Reason}))
		return protocol.DecisionDenied, true
	}
	return "", false
}

// withCompactHooks adds PreCompact/PostCompact hooks to the compaction
// observer (next, which may be nil) when there are hooks.
func (e *Engine) withCompactHooks(next CompactObserver) CompactObserver {
	if e.opts.Hooks == nil {
		return next
	}
	return compactHooks{e: e, next: next}
}

// compactHooks fires PreCompact and PostCompact in the compacted thread.
type compactHooks struct {
	e    *Engine
	next CompactObserver
}

func (c compactHooks) fire(ctx context.Context, ci CompactInfo, post bool) {
	t := c.e.thread(ci.ThreadID)
	if t == nil {
		return
	}
	trigger := "auto" // Codex's hooks know manual and auto; a context overflow is automatic
	if ci.Trigger == protocol.CompactManual {
		trigger = "manual"
	}
	t.mu.Lock()
	turnID := t.turn.id
	t.mu.Unlock()
	hc := t.hookContext(turnID)
	var o hooks.Outcome
	if post {
		o = c.e.opts.Hooks.PostCompact(ctx, hc, trigger)
	} else {
		o = c.e.opts.Hooks.PreCompact(ctx, hc, trigger)
	}
	t.hookNotes(turnID, o)
}

func (c compactHooks) PreCompact(ctx context.Context, ci CompactInfo) {
	if c.next != nil {
		c.next.PreCompact(ctx, ci)
	}
	c.fire(ctx, ci, false)
}

func (c compactHooks) PostCompact(ctx context.Context, ci CompactInfo) {
	if c.next != nil {
		c.next.PostCompact(ctx, ci)
	}
	c.fire(ctx, ci, true)
}
