package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// turnEnd is how a turn's steps ended: the outcome, the answer (or what
// the agent had said when interrupted) and the error's text.
type turnEnd struct {
	outcome turnOutcome
	last    string
	errMsg  string
}

// turnRun is one turn's step loop: a model call, then its tool calls, until
// the model answers, the turn is interrupted, a limit's grace step ends or
// an error stops it.
type turnRun struct {
	t      *Thread
	ctx    context.Context // the interrupt path
	turnID string
	// A surface's limits (SpawnChild): limitCtx ends at MaxTime, and after
	// it the grace step's own deadline.
	lim      Limits
	endTurn  map[string]bool
	limitCtx context.Context
	cancels  []context.CancelFunc
	// graceOnly is the tools of the grace step, set during it.
	graceOnly map[string]bool
	// said is what the agent has told so far this turn, for a waiter that
	// stops on its interruption; partial is the reply being streamed.
	said              []string
	partial           strings.Builder
	steps             int
	stopContinued     int
	compactedForRetry bool
	started           time.Time
	// stepEnded is when the last step (its model call and tool calls)
	// ended: a time limit whose deadline it passed struck mid-step.
	stepEnded time.Time
}

func (t *Thread) turnSteps(ctx context.Context, turnID string) (turnOutcome, string, string) {
	r := t.newTurnRun(ctx, turnID)
	defer r.finish()
	for {
		if end, done := r.step(); done {
			return end.outcome, end.last, end.errMsg
		}
	}
}

func (t *Thread) newTurnRun(ctx context.Context, turnID string) *turnRun {
	t.mu.Lock()
	lim, endTurn := t.run.limits, t.run.endTurn
	t.mu.Unlock()
	r := &turnRun{t: t, ctx: ctx, turnID: turnID, lim: lim, endTurn: endTurn, limitCtx: ctx, started: time.Now()}
	if lim.MaxTime > 0 {
		var cancel context.CancelFunc
		r.limitCtx, cancel = context.WithTimeout(ctx, lim.MaxTime)
		r.cancels = append(r.cancels, cancel)
	}
	return r
}

// finish ends the grace step's activity and releases the limit contexts.
func (r *turnRun) finish() {
	if r.graceOnly != nil {
		r.t.mu.Lock()
		reason := r.t.turn.limitHit
		r.t.mu.Unlock()
		r.t.e.activity(r.t, protocol.ActivityGracePeriodEnd, map[string]any{"reason": reason})
	}
	for _, cancel := range r.cancels {
		cancel()
	}
}

// soFar is what the agent has said this turn, the streaming reply included.
func (r *turnRun) soFar() string {
	if r.partial.Len() > 0 {
		return strings.Join(append(r.said, r.partial.String()), "\n\n")
	}
	return strings.Join(r.said, "\n\n")
}

// interrupted ends the turn on an interrupt; inStep: it came while a step
// ran (not at a step's start).
func (r *turnRun) interrupted(inStep bool) (turnEnd, bool) {
	r.t.mu.Lock()
	r.t.turn.inStep = inStep
	r.t.mu.Unlock()
	return turnEnd{outcome: outcomeInterrupted, last: r.soFar()}, true
}

func errored(msg string) (turnEnd, bool) {
	return turnEnd{outcome: outcomeErrored, errMsg: msg}, true
}

// enterGrace starts the grace step: only the grace tools, its own deadline.
func (r *turnRun) enterGrace(reason string) {
	var cancel context.CancelFunc
	r.limitCtx, cancel = r.t.enterGrace(r.ctx, r.turnID, r.lim, reason)
	r.cancels = append(r.cancels, cancel)
	r.graceOnly = graceSet(r.lim)
}

// step runs one model call and its tool calls; done ends the turn.
func (r *turnRun) step() (turnEnd, bool) {
	t := r.t
	if !t.takePending(r.ctx, r.turnID) {
		return r.interrupted(false)
	}
	if r.graceOnly == nil {
		if reason := limitReached(r.lim, r.steps, r.limitCtx); reason != "" {
			r.noteLimitInStep(reason)
			r.enterGrace(reason)
		}
	}
	if r.graceOnly != nil && r.limitCtx.Err() != nil {
		// The grace step's time is up before its request (NoGrace): the
		// model is not asked.
		return turnEnd{outcome: outcomeCompleted, last: r.soFar()}, true
	}
	if end, done := r.fitContext(); done {
		return end, true
	}
	req := t.stepRequest(r.ctx, r.turnID, r.graceOnly)
	sent := len(req.Items) - len(t.agentsCtx)
	r.steps++
	t.mu.Lock()
	t.turn.steps = r.steps
	t.mu.Unlock()
	r.partial.Reset()
	t.e.activity(t, protocol.ActivityTurnStart, progress(r.steps-1, r.lim, r.started))
	resp, err := t.streamReply(r.limitCtx, r.turnID, req, &r.partial)
	if err != nil {
		r.stepEnded = time.Now()
		return r.replyFailed(err)
	}
	t.budget.noteUsage(sent, resp.Usage)
	t.e.activity(t, protocol.ActivityTurnComplete, progress(r.steps, r.lim, r.started))
	r.partial.Reset()
	if t.recordReply(r.turnID, resp) {
		r.said = append(r.said, resp.Text)
	}
	if len(resp.ToolCalls) == 0 {
		return r.answered(resp.Text)
	}
	abort, ended, final := t.runCalls(r.limitCtx, r.turnID, resp.ToolCalls, r.graceOnly, r.endTurn)
	r.stepEnded = time.Now()
	return r.afterCalls(abort, ended, final)
}

// noteLimitInStep records whether the time limit struck while a step ran:
// its deadline passed before the last step ended (its model call or tool
// calls cut, or finishing late), not in the instant between two steps.
func (r *turnRun) noteLimitInStep(reason string) {
	if reason != LimitTimeout {
		return
	}
	dl, ok := r.limitCtx.Deadline()
	in := ok && r.steps > 0 && !r.stepEnded.Before(dl)
	r.t.mu.Lock()
	r.t.turn.inStep = in
	r.t.mu.Unlock()
}

// fitContext stops the turn when the rollout cannot keep a record (work it
// lost would be forgotten on resume) and compacts a history at its limit.
func (r *turnRun) fitContext() (turnEnd, bool) {
	t := r.t
	if err := t.recordFailed(); err != nil {
		return errored(unrecordedMessage(err))
	}
	if !t.needsCompaction(r.ctx) {
		return turnEnd{}, false
	}
	// A failed compaction was announced; the request may still fit.
	_ = t.compact(r.ctx, r.turnID, protocol.CompactAuto, "")
	if r.ctx.Err() != nil {
		return r.interrupted(true)
	}
	// A `compacted` line the disk refused: the history the model would see
	// next is one a resume could not rebuild.
	if err := t.recordFailed(); err != nil {
		return errored(unrecordedMessage(err))
	}
	return turnEnd{}, false
}

// replyFailed decides what a failed model call means: an interrupt, the
// time limit (the grace step comes next, or it ran out too), a history too
// long (compact once and retry), or the turn's error.
func (r *turnRun) replyFailed(err error) (turnEnd, bool) {
	t := r.t
	if r.ctx.Err() != nil {
		t.keepInterruptedReply(r.turnID, r.partial.String())
		return r.interrupted(true)
	}
	if r.limitCtx.Err() != nil {
		if r.graceOnly != nil {
			return turnEnd{outcome: outcomeCompleted, last: r.soFar()}, true
		}
		return turnEnd{}, false
	}
	// Too long for the model: compact once and retry, rather than leave a
	// session that can never answer again.
	if errors.Is(err, model.ErrContextWindowExceeded) && !r.compactedForRetry {
		r.compactedForRetry = true
		t.publish(protocol.NewEvent(t.id, r.turnID, protocol.WarningMsg{Text: "the model refused the conversation as too long for its context window; compacting and retrying"}))
		cerr := t.compact(r.ctx, r.turnID, protocol.CompactContextExceeded, "")
		if r.ctx.Err() != nil {
			return r.interrupted(true)
		}
		if cerr == nil {
			return turnEnd{}, false
		}
	}
	msg := err.Error()
	t.publish(protocol.NewEvent(t.id, r.turnID, protocol.ErrorMsg{Text: msg}))
	return errored(msg)
}

// answered handles a reply without tool calls: the grace step when the
// surface wants complete_task, a Stop hook that sends the turn on, or the
// turn's answer.
func (r *turnRun) answered(text string) (turnEnd, bool) {
	t := r.t
	if r.graceOnly == nil && r.lim.GraceOnEnd && len(r.endTurn) > 0 {
		// Ended without complete_task: the grace step asks for it.
		r.enterGrace(LimitNoCompletion)
		return turnEnd{}, false
	}
	if more := t.afterTurn(r.ctx, r.turnID, outcomeCompleted, text, r.stopContinued); more != "" {
		r.stopContinued++
		t.appendHistory(protocol.GroveNotice(more))
		return turnEnd{}, false
	}
	return turnEnd{outcome: outcomeCompleted, last: text}, true
}

// afterCalls ends the turn when a call aborted it, a tool that ends the
// turn succeeded, the grace step is over, or the thread is closing.
func (r *turnRun) afterCalls(abort, ended bool, final string) (turnEnd, bool) {
	switch {
	case abort || r.ctx.Err() != nil:
		return r.interrupted(true)
	case ended && final != "":
		return turnEnd{outcome: outcomeCompleted, last: final}, true
	case ended || r.graceOnly != nil:
		return turnEnd{outcome: outcomeCompleted, last: r.soFar()}, true
	}
	r.t.mu.Lock()
	closing := r.t.life.closing
	r.t.mu.Unlock()
	if closing {
		return r.interrupted(true)
	}
	return turnEnd{}, false
}
