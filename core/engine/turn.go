package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// loop waits for input and runs turns until the thread is closed.
func (t *Thread) loop() {
	defer close(t.life.done)
	for {
		t.mu.Lock()
		compactNow := t.turn.compactPending
		has := t.turn.hasInput() || compactNow
		ctx := t.life.ctx
		t.mu.Unlock()
		if !has {
			select {
			case <-ctx.Done():
				return
			case <-t.life.wake:
				continue
			}
		}
		if ctx.Err() != nil {
			return
		}
		if compactNow {
			t.runCompaction(ctx)
			continue
		}
		t.runTurn(ctx)
	}
}

// testHookBeforeTakeInput, when set by a test, runs just before a turn
// step takes queued input (to interleave a delivery there).
var testHookBeforeTakeInput func(*Thread)

// turnOutcome is how a turn ended.
type turnOutcome int

const (
	outcomeCompleted turnOutcome = iota
	outcomeInterrupted
	outcomeErrored
)

// runTurn runs model calls and tool calls until the model answers without
// tool calls, the turn is interrupted, or an error ends it.
func (t *Thread) runTurn(parent context.Context) {
	e := t.e
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	turnID := uuid.NewString()
	t.mu.Lock()
	if t.turn.halted {
		// Interrupted between the loop's check and here: no turn.
		t.mu.Unlock()
		return
	}
	// The turn owns the input that starts it from the moment it can be
	// interrupted (same critical section as its cancel): an interrupt right
	// after turn_started ends this turn with its input, instead of an empty
	// turn whose input then runs in another one.
	input := t.turn.begin(turnID, cancel)
	tc := rollout.TurnContext{TurnID: turnID, Model: t.modelName, ReasoningEffort: t.effort, Cwd: t.cwd, Sandbox: t.sandbox, ApprovalPolicy: e.ApprovalPolicy()}
	rec := t.life.rec
	t.mu.Unlock()
	if rec != nil {
		_ = rec.AppendTurnContext(tc)
	}
	t.setStatus(protocol.Running())
	t.publish(protocol.NewEvent(t.id, turnID, protocol.TurnStartedMsg{ClientIDs: clientIDs(input)}))
	blocked, extra := t.beforePrompt(ctx, turnID, input)
	outcome, lastText, errMsg := outcomeCompleted, "", ""
	started := time.Now()
	if !blocked {
		t.takeInput(turnID, input)
		t.appendHistory(extra...)
		t.prewarmTools(turnID)
		outcome, lastText, errMsg = t.turnSteps(ctx, turnID)
	}
	if outcome == outcomeInterrupted {
		t.noteInterrupted()
	}
	if err := t.recordFailed(); err != nil && outcome == outcomeCompleted {
		outcome, errMsg = outcomeErrored, unrecordedMessage(err)
	}
	t.turnEndActivity(outcome, errMsg, started)
	if outcome != outcomeCompleted && t.parentID != "" {
		// SubagentStop also fires for a child that did not complete; the
		// turn's context may be cancelled, the engine's is not.
		t.afterTurn(e.ctx, turnID, outcome, lastText, 0)
	}

	final := protocol.Completed(lastText, true)
	switch outcome {
	case outcomeInterrupted:
		final = protocol.Interrupted()
		final.Message, final.HasMessage = lastText, lastText != ""
	case outcomeErrored:
		final = protocol.Errored(errMsg)
	}
	outcomeStatus := final
	t.publish(protocol.NewEvent(t.id, turnID, protocol.TurnCompletedMsg{LastMessage: lastText, Outcome: &outcomeStatus}))
	// One critical section with deliver: input that arrived during the turn
	// (an interrupting send_input) starts the next turn at once, so this
	// turn's end is no final status for a waiter to stop on.
	t.transition(func(protocol.AgentStatus) (protocol.AgentStatus, bool) {
		more := t.turn.end()
		if outcome == outcomeCompleted {
			t.turn.lastMessage = lastText
		}
		// closeThreads sets shutdown; a turn that outlived the close
		// deadline must not overwrite it when it finally ends.
		closing := t.life.gone()
		return final, !closing && !more
	})
	// Lines were written as they happened; the turn's end makes them durable.
	t.sync()
}

// takePending moves the input that arrived since the last request into
// the conversation; false means the turn was interrupted (an interrupted
// turn leaves queued input for the next turn).
func (t *Thread) takePending(ctx context.Context, turnID string) bool {
	if ctx.Err() != nil {
		return false
	}
	if testHookBeforeTakeInput != nil {
		testHookBeforeTakeInput(t)
	}
	// Taken under mu after checking ctx: deliver cancels under mu, so
	// input sent with an interrupt is never taken by the turn it ends.
	t.mu.Lock()
	if ctx.Err() != nil {
		t.mu.Unlock()
		return false
	}
	pending := t.turn.takeInput()
	t.mu.Unlock()
	t.takeInput(turnID, pending)
	return ctx.Err() == nil
}

// limitReached names the surface limit the turn has reached, if any.
func limitReached(lim Limits, steps int, limitCtx context.Context) string {
	switch {
	case lim.MaxSteps > 0 && steps >= lim.MaxSteps:
		return LimitMaxSteps
	case lim.MaxTime > 0 && limitCtx.Err() != nil:
		return LimitTimeout
	}
	return ""
}

// stepRequest builds the next model request with the tools the thread may
// call now (only the grace tools during the grace step).
func (t *Thread) stepRequest(ctx context.Context, turnID string, graceOnly map[string]bool) model.Request {
	req := t.buildRequest()
	req.Tools = t.e.tools.SpecsFor(ctx, t.sourceEnv(turnID), t.toolAllowed)
	// A surface's own tools (Task's complete_task…) are per thread.
	t.mu.Lock()
	own := t.run.own
	t.mu.Unlock()
	if own != nil {
		req.Tools = append(req.Tools, own.Specs(nil)...)
	}
	req.Tools = t.toolSet().Offer(req.Tools)
	if graceOnly != nil {
		req.Tools = onlyTools(req.Tools, graceOnly)
	}
	return req
}

// toolSet is the tools the thread's model is offered (its family).
func (t *Thread) toolSet() tools.ToolSet {
	t.mu.Lock()
	name := t.modelName
	t.mu.Unlock()
	return tools.ToolSetFor(name, t.e.opts.ToolConfig)
}

// streamReply streams one model reply, publishing its deltas; partial
// holds the text streamed so far.
func (t *Thread) streamReply(ctx context.Context, turnID string, req model.Request, partial *strings.Builder) (model.Response, error) {
	e := t.e
	return e.opts.Client.Stream(ctx, req, func(d model.Delta) {
		switch d.Kind {
		case model.DeltaText:
			partial.WriteString(d.Text)
			e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.MessageDeltaMsg{Delta: d.Text}))
		case model.DeltaReasoning:
			e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.ReasoningDeltaMsg{Delta: d.Text}))
			e.thoughtChunk(t, d.Text)
		case model.DeltaReset:
			partial.Reset()
			e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.MessageResetMsg{}))
		case model.DeltaRetry:
			t.publish(protocol.NewEvent(t.id, turnID, protocol.StreamRetryMsg{Text: d.Text}))
		case model.DeltaWarning:
			t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: d.Text}))
		}
	})
}

// recordReply adds a reply's usage, reasoning and text to the thread; it
// reports whether the reply said something.
func (t *Thread) recordReply(turnID string, resp model.Response) bool {
	t.accountUsage(turnID, resp.Usage)
	for _, ws := range resp.WebSearches {
		// Ran by the provider: shown and recorded, nothing to run here.
		t.publish(protocol.NewEvent(t.id, turnID, protocol.WebSearchMsg{Call: ws}))
	}
	if len(resp.ReasoningItems) > 0 {
		// Kept whole: the provider needs them back with the next request.
		t.appendHistory(resp.ReasoningItems...)
	} else if resp.Reasoning != "" {
		t.appendHistory(protocol.Item{Type: protocol.ItemReasoning, Summary: resp.Reasoning})
	}
	if resp.Text == "" {
		return false
	}
	t.appendHistory(protocol.AssistantMessage(resp.Text))
	t.publish(protocol.NewEvent(t.id, turnID, protocol.AgentMessageMsg{Text: resp.Text}))
	return true
}

// runCalls runs a reply's tool calls and records their outputs: abort when
// one asked to end the turn, ended (with the final answer) when a tool
// that ends the turn succeeded.
func (t *Thread) runCalls(ctx context.Context, turnID string, reqCalls []model.ToolCallRequest, graceOnly, endTurn map[string]bool) (abort, ended bool, final string) {
	calls := make([]protocol.Item, len(reqCalls))
	for i, c := range reqCalls {
		if c.CallID == "" {
			c.CallID = "call_" + uuid.NewString()[:8]
			reqCalls[i] = c
		}
		calls[i] = protocol.FunctionCall(c.CallID, c.Name, c.Arguments)
		calls[i].Custom = c.Custom // replayed as the custom_tool_call it was
	}
	t.appendHistory(calls...)
	t.mu.Lock()
	t.turn.toolCalls += len(calls)
	t.mu.Unlock()
	results := t.runTools(ctx, turnID, reqCalls, graceOnly)
	for i, r := range results {
		out := protocol.FunctionCallOutput(reqCalls[i].CallID, r.Output)
		out.Custom = reqCalls[i].Custom
		out.Images = r.Images // an MCP result's or view_image's images reach the model as images
		t.appendHistory(out)
		abort = abort || r.Abort
		if endTurn[reqCalls[i].Name] && !r.IsError {
			ended, final = true, r.Final
		}
	}
	return abort, ended, final
}

// graceSet is the tools of the grace step.
func graceSet(lim Limits) map[string]bool {
	only := map[string]bool{}
	for _, n := range lim.GraceTools {
		only[n] = true
	}
	return only
}

// keepInterruptedReply records the part of a reply that had streamed when
// an interrupt cut it off, so history, rollout and events keep what the
// user already saw (marked interrupted) instead of dropping it.
func (t *Thread) keepInterruptedReply(turnID, text string) {
	if text == "" {
		return
	}
	it := protocol.AssistantMessage(text)
	it.Interrupted = true
	t.appendHistory(it)
	t.publish(protocol.NewEvent(t.id, turnID, protocol.AgentMessageMsg{Text: text, Interrupted: true}))
}

func (t *Thread) accountUsage(turnID string, u protocol.TokenUsage) {
	t.mu.Lock()
	total := t.turn.addUsage(u)
	t.mu.Unlock()
	call := u
	t.publish(protocol.NewEvent(t.id, turnID, protocol.TokenUsageMsg{Usage: call, Total: total}))
}

// buildRequest is the next model request. Its cost does not grow with the
// history: only items new since the last request are converted (and, in
// the client, encoded); the rest is shared.
func (t *Thread) buildRequest() model.Request {
	t.mu.Lock()
	// The AGENTS.md block leads the conversation, outside the history
	// (not recorded as the user's words, rebuilt after compaction).
	fresh, prefix := t.budget.fresh(t.agentsCtx)
	req := model.Request{
		Model: t.modelName, Instructions: t.instructions, Tools: t.specs,
		ReasoningEffort: t.effort, ParallelToolCalls: true, Prefix: prefix,
		CacheKey: string(t.id), Temperature: t.run.temperature, TopP: t.run.topP,
	}
	if t.parentID == "" {
		req.OutputSchema = t.e.opts.OutputSchema
	}
	if len(t.turn.turnSchema) > 0 {
		req.OutputSchema = t.turn.turnSchema
	}
	req.ReasoningSummary = t.summary
	if len(t.e.opts.TurnMetadata) > 0 && t.parentID == "" {
		req.Headers = map[string]string{"x-codex-turn-metadata": turnMetadata(t.e.opts.TurnMetadata, t.turn.id)}
	}
	t.mu.Unlock()
	// Converted outside mu (it looks up other threads); the loop is the
	// only writer of view.
	converted := t.e.modelItems(t, fresh)
	req.Items = t.budget.extendView(converted)
	return req
}

// prewarmTools prepares the thread's slow-to-start tools (exec_command's
// sandbox helper, ~130 ms) while its first model request is in flight, so
// the first tool call does not pay for it. Root threads only, once each
// (sub-agents in other directories would each keep a helper process
// whether or not they run a command); the goroutine belongs to the engine
// (e.wg) and ends when the tools are ready.
func (t *Thread) prewarmTools(turnID string) {
	if !t.e.opts.PrewarmTools || t.depth > 0 {
		return
	}
	t.mu.Lock()
	done := t.prewarmed
	t.prewarmed = true
	env := &tools.Env{ThreadID: t.id, TurnID: turnID, Cwd: t.cwd, Sandbox: t.sandbox, ApprovalPolicy: t.e.ApprovalPolicy()}
	t.mu.Unlock()
	if done {
		return
	}
	t.e.wg.Add(1)
	go func() {
		defer t.e.wg.Done()
		t.e.tools.Prewarm(env, t.toolAllowed)
	}()
}

// inputEvent announces an input item joining the conversation: a message
// from another agent is agent_input naming its sender, never user_message.
// inputID and clientIDs name the queued input the turn took.
func inputEvent(id protocol.ThreadID, turnID string, it protocol.Item, inputID string, clientIDs []string) protocol.Event {
	if it.Role == protocol.RoleAgent {
		return protocol.NewEvent(id, turnID, protocol.AgentInputMsg{Text: it.Content, From: it.From, InputID: inputID, ClientIDs: clientIDs})
	}
	return protocol.NewEvent(id, turnID, protocol.UserMessageMsg{Text: it.Content, InputID: inputID, ClientIDs: clientIDs})
}

// toolAllowed applies the thread's template policy, its surface and the
// filter its surface gave it.
func (t *Thread) toolAllowed(name string) bool {
	if !t.e.surfaceAllows(t.surface, name) {
		return false
	}
	// Rebind replaces t.run under mu while a turn may be asking.
	t.mu.Lock()
	allow := t.run.allow
	t.mu.Unlock()
	if allow != nil && !allow(name) {
		return false
	}
	return tools.Policy{Allow: t.allow, Deny: t.deny}.Allowed(name)
}

// refusedBySurface is the surface's own answer for a registered tool its
// filter refuses (Task's seed wording), when the surface gave one.
func (t *Thread) refusedBySurface(name string) (string, bool) {
	t.mu.Lock()
	run := t.run
	t.mu.Unlock()
	if run.allow == nil || run.blocked == nil || run.allow(name) {
		return "", false
	}
	if _, exists := t.e.tools.Get(name); !exists {
		return "", false
	}
	return run.blocked(name), true
}

// runTools executes one reply's tool calls concurrently and returns their
// results in call order.
func (t *Thread) runTools(ctx context.Context, turnID string, calls []model.ToolCallRequest, only map[string]bool) []tools.Result {
	results := make([]tools.Result, len(calls))
	// Each call begins (its tool_call_begin) after the one before it, then
	// all run at once: a front end lists five spawns, and their agents, in
	// the order the model asked for them, not as their goroutines happened
	// to start (issue 35 item 14).
	begun := make([]chan struct{}, len(calls))
	for i := range begun {
		begun[i] = make(chan struct{})
	}
	// The spawns' max_threads slots are settled in call order too: the
	// first spawns asked for are the ones that start (spawn_slots.go).
	tickets := t.reserveSpawnSlots(calls, only)
	// A call that must run alone (an MCP server without
	// supports_parallel_tool_calls) holds the reply's lock to itself, the
	// others share it; taken in call order, as Codex's lock is.
	alone := t.runsAlone(calls)
	var order sync.RWMutex
	var wg sync.WaitGroup
	for i, c := range calls {
		var tk *slotTicket
		if tickets != nil {
			tk = tickets[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tk.done()
			var once sync.Once
			announced := func() { once.Do(func() { close(begun[i]) }) }
			defer announced() // a call that never began does not hold up the next
			if i > 0 {
				<-begun[i-1]
			}
			if only != nil && !only[c.Name] {
				results[i] = tools.Errorf("tool %q is not available in the final step: call only %s", c.Name, strings.Join(sortedKeys(only), ", "))
				return
			}
			if alone[i] {
				order.Lock()
				defer order.Unlock()
			} else {
				order.RLock()
				defer order.RUnlock()
			}
			results[i] = t.runTool(tk.with(ctx), turnID, c, announced)
		}()
	}
	wg.Wait()
	return results
}

// runsAlone says which of a reply's calls must run alone (tools.Alone).
func (t *Thread) runsAlone(calls []model.ToolCallRequest) []bool {
	t.mu.Lock()
	route := tools.Route{Own: t.run.own, Refused: t.refusedBySurface, Allow: t.toolAllowed}
	t.mu.Unlock()
	out := make([]bool, len(calls))
	for i, c := range calls {
		out[i] = len(calls) > 1 && t.e.tools.RunsAlone(c.Name, route)
	}
	return out
}

// runTool builds the call's environment and route; everything else —
// events, hooks, approval, the handler — is the one tool path
// (tools.Registry.Dispatch). announced is called once the call's
// beginning is published.
func (t *Thread) runTool(ctx context.Context, turnID string, c model.ToolCallRequest, announced func()) tools.Result {
	e := t.e
	if c.Custom {
		// A freeform call's text reaches the tool, hooks and events in
		// the tool's function form; history keeps what the model wrote.
		c.Arguments = protocol.WrapCustomInput(c.Arguments)
	}
	t.mu.Lock()
	t.turn.lastTool = c.Name
	env := &tools.Env{
		ThreadID: t.id, TurnID: turnID, CallID: c.CallID, Cwd: t.cwd,
		Sandbox: t.sandbox, ApprovalPolicy: e.ApprovalPolicy(), Sessions: e.sessions,
		Family:       tools.ToolSetFor(t.modelName, e.opts.ToolConfig).Family,
		NoLoginShell: e.opts.ToolConfig.NoLoginShell,
	}
	own := t.run.own
	t.mu.Unlock()
	env.AskUser = t.askUser(turnID, c.CallID)
	route := tools.Route{Own: own, Refused: t.refusedBySurface, Allow: t.toolAllowed}
	if t.host != "" {
		var ws string
		var err error
		if env.Exec, ws, err = e.hostBackend(t.host); err == nil {
			env.Cwd = hostPath(e.opts.Cwd, ws, env.Cwd)
		} else {
			route.EnvErr = fmt.Errorf("this agent's tools run on host %s: %w", t.host, err)
		}
	}
	env.Approve = func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		req.CallID = c.CallID
		return e.askApprovalUnhooked(ctx, t, t, req)
	}
	emit := t.toolEmit(turnID)
	env.Emit = func(ev protocol.Event) {
		emit(ev)
		if ev.Type == protocol.EventToolCallBegin {
			announced()
		}
	}
	env.Hooks = t.toolHooks()
	return e.tools.Dispatch(ctx, env, tools.Call{ID: c.CallID, Name: c.Name, Args: json.RawMessage(c.Arguments)}, route)
}

// toolEmit publishes a tool call's events for t: recorded, except the
// live output deltas (tool_call_end records the output), with the call's
// start and end on the activity stream.
func (t *Thread) toolEmit(turnID string) func(protocol.Event) {
	e := t.e
	return func(ev protocol.Event) {
		ev.ThreadID = t.id
		ev.TurnID = turnID
		if ev.Type == protocol.EventExecOutputDelta {
			e.bus.Publish(ev)
			return
		}
		switch c := ev.Tool; {
		case c != nil && ev.Type == protocol.EventToolCallBegin:
			e.activity(t, protocol.ActivityToolCallStart, map[string]any{"tool_name": c.Name, "arguments": argumentsValue(c.Arguments)})
		case c != nil && ev.Type == protocol.EventToolCallEnd:
			e.activity(t, protocol.ActivityToolCallEnd, map[string]any{"tool_name": c.Name, "success": !c.IsError, "duration_ms": c.DurationMS})
		}
		t.publish(ev)
	}
}

// hostBackend returns the backend and workspace of a host by name.
func (e *Engine) hostBackend(name string) (execenv.Backend, string, error) {
	if name == e.opts.HostName && e.opts.Exec != nil {
		return e.opts.Exec, e.opts.Workspace, nil
	}
	if e.opts.OpenHost == nil {
		return nil, "", fmt.Errorf("host %q is not configured", name)
	}
	return e.opts.OpenHost(name)
}

// hostPath maps a local directory under the session's cwd to the same
// place under the host's workspace; anything else maps to the workspace
// itself (no local path means anything on the host).
func hostPath(cwd, workspace, dir string) string {
	if workspace == "" {
		return dir
	}
	rel, err := filepath.Rel(cwd, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return workspace
	}
	return path.Join(workspace, filepath.ToSlash(rel))
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// turnEndActivity reports how a turn ended on the activity stream
// (seed 004 §5.2): completed with its duration and steps, or the error.
func (t *Thread) turnEndActivity(outcome turnOutcome, errMsg string, started time.Time) {
	switch outcome {
	case outcomeCompleted:
		t.mu.Lock()
		steps := t.turn.steps
		t.mu.Unlock()
		t.e.activity(t, protocol.ActivityCompleted, map[string]any{"duration_seconds": time.Since(started).Seconds(), "turns_used": steps})
	case outcomeErrored:
		t.e.activity(t, protocol.ActivityError, map[string]any{"error": errMsg})
	}
}
