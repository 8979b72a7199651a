package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// loop waits for input and runs turns until the thread is closed.
func (t *Thread) loop() {
	defer close(t.done)
	for {
		t.mu.Lock()
		has := len(t.pending) > 0 && !t.halted
		ctx := t.ctx
		t.mu.Unlock()
		if !has {
			select {
			case <-ctx.Done():
				return
			case <-t.wake:
				continue
			}
		}
		if ctx.Err() != nil {
			return
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
	if t.halted {
		// Interrupted between the loop's check and here: no turn.
		t.mu.Unlock()
		return
	}
	t.turnCancel = cancel
	t.turnID = turnID
	t.running = true
	t.steps, t.limitHit = 0, ""
	// The turn owns the input that starts it from the moment it can be
	// interrupted (same critical section as turnCancel): an interrupt right
	// after turn_started ends this turn with its input, instead of an empty
	// turn whose input then runs in another one.
	input := t.pending
	t.pending = nil
	tc := rollout.TurnContext{TurnID: turnID, Model: t.modelName, ReasoningEffort: t.effort, Cwd: t.cwd, Sandbox: t.sandbox, ApprovalPolicy: e.opts.ApprovalPolicy}
	rec := t.rec
	t.mu.Unlock()
	if rec != nil {
		_ = rec.AppendTurnContext(tc)
	}
	t.setStatus(protocol.Running())
	t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.TurnStartedMsg{ClientIDs: clientIDs(input)})))
	t.takeInput(turnID, input)

	started := time.Now()
	outcome, lastText, errMsg := t.turnSteps(ctx, turnID)
	switch outcome {
	case outcomeCompleted:
		t.mu.Lock()
		steps := t.steps
		t.mu.Unlock()
		e.activity(t, protocol.ActivityCompleted, map[string]any{"duration_seconds": time.Since(started).Seconds(), "turns_used": steps})
	case outcomeErrored:
		e.activity(t, protocol.ActivityError, map[string]any{"error": errMsg})
	}

	t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.TurnCompletedMsg{LastMessage: lastText})))
	final := protocol.Completed(lastText, true)
	switch outcome {
	case outcomeInterrupted:
		final = protocol.Interrupted()
		final.Message, final.HasMessage = lastText, lastText != ""
	case outcomeErrored:
		final = protocol.Errored(errMsg)
	}
	// One critical section with deliver: input that arrived during the turn
	// (an interrupting send_input) starts the next turn at once, so this
	// turn's end is no final status for a waiter to stop on.
	t.statusMu.Lock()
	t.mu.Lock()
	t.running = false
	t.turnCancel = nil
	// closeThreads sets shutdown; a turn that outlived the close deadline
	// must not overwrite it when it finally ends.
	closing := t.closing || t.closed
	more := len(t.pending) > 0 && !t.halted
	if outcome == outcomeCompleted {
		t.lastMessage = lastText
	}
	t.mu.Unlock()
	changed := !closing && !more && t.setStatusLocked(final)
	t.statusMu.Unlock()
	if changed {
		e.updateIndex(t)
	}
	// Lines were written as they happened; the turn's end makes them durable.
	t.sync()
}

func (t *Thread) turnSteps(ctx context.Context, turnID string) (turnOutcome, string, string) {
	e := t.e
	// said is what the agent has told so far this turn, for a waiter that
	// stops on its interruption.
	var said []string
	var partial strings.Builder // the reply being streamed
	soFar := func() string {
		if partial.Len() > 0 {
			return strings.Join(append(said, partial.String()), "\n\n")
		}
		return strings.Join(said, "\n\n")
	}
	// A surface's limits (SpawnChild): limitCtx ends at MaxTime, and after
	// it the grace step's own deadline; ctx alone is the interrupt path.
	t.mu.Lock()
	lim, endTurn := t.run.limits, t.run.endTurn
	t.mu.Unlock()
	limitCtx := ctx
	if lim.MaxTime > 0 {
		var cancelLimit context.CancelFunc
		limitCtx, cancelLimit = context.WithTimeout(ctx, lim.MaxTime)
		defer cancelLimit()
	}
	var graceOnly map[string]bool // set during the grace step
	started := time.Now()
	defer func() {
		if graceOnly != nil {
			t.mu.Lock()
			reason := t.limitHit
			t.mu.Unlock()
			e.activity(t, protocol.ActivityGracePeriodEnd, map[string]any{"reason": reason})
		}
	}()
	steps := 0
	for {
		// An interrupted turn leaves queued input for the next turn.
		if ctx.Err() != nil {
			return outcomeInterrupted, soFar(), ""
		}
		// Input that arrived since the last request joins the conversation now.
		if testHookBeforeTakeInput != nil {
			testHookBeforeTakeInput(t)
		}
		// Taken under mu after checking ctx: deliver cancels under mu, so
		// input sent with an interrupt is never taken by the turn it ends.
		t.mu.Lock()
		if ctx.Err() != nil {
			t.mu.Unlock()
			return outcomeInterrupted, soFar(), ""
		}
		pending := t.pending
		t.pending = nil
		t.mu.Unlock()
		t.takeInput(turnID, pending)
		if ctx.Err() != nil {
			return outcomeInterrupted, soFar(), ""
		}
		if graceOnly == nil {
			reason := ""
			switch {
			case lim.MaxSteps > 0 && steps >= lim.MaxSteps:
				reason = LimitMaxSteps
			case lim.MaxTime > 0 && limitCtx.Err() != nil:
				reason = LimitTimeout
			}
			if reason != "" {
				var cancelGrace context.CancelFunc
				limitCtx, cancelGrace = t.enterGrace(ctx, turnID, lim, reason)
				defer cancelGrace()
				graceOnly = graceSet(lim)
			}
		}
		req := t.buildRequest()
		req.Tools = e.tools.SpecsFor(ctx, t.sourceEnv(turnID), t.toolAllowed)
		// A surface's own tools (Task's complete_task…) are per thread.
		t.mu.Lock()
		own := t.run.own
		t.mu.Unlock()
		if own != nil {
			req.Tools = append(req.Tools, own.Specs(nil)...)
		}
		if graceOnly != nil {
			req.Tools = onlyTools(req.Tools, graceOnly)
		}
		steps++
		t.mu.Lock()
		t.steps = steps
		t.mu.Unlock()
		partial.Reset()
		e.activity(t, protocol.ActivityTurnStart, progress(steps-1, lim, started))
		resp, err := e.opts.Client.Stream(limitCtx, req, func(d model.Delta) {
			switch d.Kind {
			case model.DeltaText:
				partial.WriteString(d.Text)
				e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.MessageDeltaMsg{Delta: d.Text}))
			case model.DeltaReasoning:
				e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.ReasoningDeltaMsg{Delta: d.Text}))
			case model.DeltaReset:
				partial.Reset()
				e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.MessageResetMsg{}))
			case model.DeltaRetry:
				t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.StreamRetryMsg{Text: d.Text})))
			case model.DeltaWarning:
				t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: d.Text})))
			}
		})
		if err != nil {
			if ctx.Err() != nil {
				t.keepInterruptedReply(turnID, partial.String())
				return outcomeInterrupted, soFar(), ""
			}
			if limitCtx.Err() != nil {
				if graceOnly != nil {
					return outcomeCompleted, soFar(), "" // the grace step ran out too
				}
				continue // time is up: the grace step comes next
			}
			msg := err.Error()
			t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.ErrorMsg{Text: msg})))
			return outcomeErrored, "", msg
		}
		t.accountUsage(turnID, resp.Usage)
		e.activity(t, protocol.ActivityTurnComplete, progress(steps, lim, started))
		if len(resp.ReasoningItems) > 0 {
			// Kept whole: the provider needs them back with the next request.
			t.appendHistory(resp.ReasoningItems...)
		} else if resp.Reasoning != "" {
			t.appendHistory(protocol.Item{Type: protocol.ItemReasoning, Summary: resp.Reasoning})
		}
		partial.Reset()
		if resp.Text != "" {
			said = append(said, resp.Text)
			t.appendHistory(protocol.AssistantMessage(resp.Text))
			t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.AgentMessageMsg{Text: resp.Text})))
		}
		if len(resp.ToolCalls) == 0 {
			if graceOnly == nil && lim.GraceOnEnd && len(endTurn) > 0 {
				var cancelGrace context.CancelFunc
				limitCtx, cancelGrace = t.enterGrace(ctx, turnID, lim, LimitNoCompletion)
				defer cancelGrace()
				graceOnly = graceSet(lim)
				continue
			}
			return outcomeCompleted, resp.Text, ""
		}
		calls := make([]protocol.Item, len(resp.ToolCalls))
		for i, c := range resp.ToolCalls {
			if c.CallID == "" {
				c.CallID = "call_" + uuid.NewString()[:8]
				resp.ToolCalls[i] = c
			}
			calls[i] = protocol.FunctionCall(c.CallID, c.Name, c.Arguments)
		}
		t.appendHistory(calls...)
		t.mu.Lock()
		t.toolCalls += len(calls)
		t.mu.Unlock()
		results := t.runTools(limitCtx, turnID, resp.ToolCalls, graceOnly)
		abort, ended, final := false, false, ""
		for i, r := range results {
			t.appendHistory(protocol.FunctionCallOutput(resp.ToolCalls[i].CallID, r.Output))
			abort = abort || r.Abort
			if endTurn[resp.ToolCalls[i].Name] && !r.IsError {
				ended, final = true, r.Final
			}
		}
		if abort || ctx.Err() != nil {
			return outcomeInterrupted, soFar(), ""
		}
		if ended && final != "" {
			return outcomeCompleted, final, ""
		}
		if ended || graceOnly != nil {
			return outcomeCompleted, soFar(), ""
		}
		t.mu.Lock()
		closing := t.closing
		t.mu.Unlock()
		if closing {
			return outcomeInterrupted, soFar(), ""
		}
	}
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
	t.record(t.e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.AgentMessageMsg{Text: text, Interrupted: true})))
}

func (t *Thread) accountUsage(turnID string, u protocol.TokenUsage) {
	t.mu.Lock()
	t.usage.Add(u)
	total := t.usage
	t.mu.Unlock()
	call := u
	t.record(t.e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.TokenUsageMsg{Usage: call, Total: total})))
}

func (t *Thread) buildRequest() model.Request {
	t.mu.Lock()
	req := model.Request{
		Model: t.modelName, Instructions: t.instructions,
		Items: append([]protocol.Item(nil), t.history...), Tools: t.specs,
		ReasoningEffort: t.effort, ParallelToolCalls: true,
		Temperature: t.run.temperature, TopP: t.run.topP,
	}
	t.mu.Unlock()
	req.Items = t.e.modelItems(t, req.Items)
	return req
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
	if t.run.allow != nil && !t.run.allow(name) {
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
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if only != nil && !only[c.Name] {
				results[i] = tools.Errorf("tool %q is not available in the final step: call only %s", c.Name, strings.Join(sortedKeys(only), ", "))
				return
			}
			results[i] = t.runTool(ctx, turnID, c)
		}()
	}
	wg.Wait()
	return results
}

func (t *Thread) runTool(ctx context.Context, turnID string, c model.ToolCallRequest) tools.Result {
	e := t.e
	t.mu.Lock()
	t.lastTool = c.Name
	env := &tools.Env{
		ThreadID: t.id, TurnID: turnID, CallID: c.CallID, Cwd: t.cwd,
		Sandbox: t.sandbox, ApprovalPolicy: e.opts.ApprovalPolicy,
	}
	t.mu.Unlock()
	env.Approve = func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		req.CallID = c.CallID
		return e.askApproval(ctx, t, t, req)
	}
	env.Emit = func(ev protocol.Event) {
		ev.ThreadID = t.id
		ev.TurnID = turnID
		ev = e.bus.Publish(ev)
		if ev.Type != protocol.EventExecOutputDelta { // live only: tool_call_end records the output
			t.record(ev)
		}
	}
	e.activity(t, protocol.ActivityToolCallStart, map[string]any{"tool_name": c.Name, "arguments": argumentsValue(c.Arguments)})
	begin := protocol.ToolCall{CallID: c.CallID, Name: c.Name, Arguments: c.Arguments}
	t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.ToolCallBeginMsg{Call: begin})))
	start := time.Now()
	var res tools.Result
	if own, ok := t.ownTool(c.Name); ok {
		res = own.Run(ctx, env, c.Name, json.RawMessage(c.Arguments))
	} else if msg, refused := t.refusedBySurface(c.Name); refused {
		res = tools.Result{Output: msg, IsError: true}
	} else {
		res = e.tools.RunAllowed(ctx, env, c.Name, json.RawMessage(c.Arguments), t.toolAllowed)
	}
	if ctx.Err() != nil && !res.IsError && res.Output == "" {
		res = tools.Result{Output: "aborted: the turn was interrupted", IsError: true}
	}
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	end := protocol.ToolCall{
		CallID: c.CallID, Name: c.Name, Arguments: c.Arguments, Output: res.Output,
		IsError: res.IsError, ExitCode: res.ExitCode, DurationMS: res.Duration.Milliseconds(),
		Summary: res.Summary, AgentIDs: res.AgentIDs,
	}
	e.activity(t, protocol.ActivityToolCallEnd, map[string]any{"tool_name": c.Name, "success": !res.IsError, "duration_ms": res.Duration.Milliseconds()})
	// update_plan publishes its plan itself through env.Emit.
	t.record(e.bus.Publish(protocol.NewEvent(t.id, turnID, protocol.ToolCallEndMsg{Call: end})))
	return res
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
