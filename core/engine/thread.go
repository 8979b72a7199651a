package engine

import (
	"sync"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Thread is one agent conversation with its own turn loop. Its state has
// four owners besides the settings kept here: threadIdentity (fixed at
// creation, read without a lock), contextBudget (the conversation and its
// size, a leaf lock of its own), turnState and threadLife (the running turn,
// the loop and the rollout, under mu) and threadStatus (its own lock, taken
// before mu). docs/architecture.md's "engine" section has the lock order.
type Thread struct {
	e *Engine
	threadIdentity

	// run holds what a surface added at spawn (SpawnChild, Rebind): a tool
	// filter, thread-own tools, limits; zero for an ordinary thread.
	run childRun

	// mu guards the settings below, turn and life.
	mu           sync.Mutex
	emitMu       sync.Mutex // publish + record of one event (publish)
	instructions string
	// agentsCtx is the user-role AGENTS.md block that opens every request
	// (agentsContext); the budget's request view starts with it.
	agentsCtx []protocol.Item
	modelName string
	effort    string
	cwd       string
	sandbox   protocol.SandboxPolicy
	// summary is the reasoning summary asked of the model ("" = auto).
	summary     string
	note        string
	name        string
	firstPrompt string
	// budget is the conversation and its size (context_budget.go).
	budget contextBudget
	// turn is the queued input and the running turn (turn_state.go).
	turn turnState
	// prewarmed: the thread's tools were prepared (prewarmTools).
	prewarmed bool
	children  []protocol.ThreadID
	// hooksStarted: SessionStart/SubagentStart ran; hookToolCtx holds
	// PreToolUse context until its call's output (hooks.go).
	hooksStarted bool
	hookToolCtx  map[string][]string
	specs        []model.ToolSpec
	// life is the loop, the rollout and closing (thread_life.go).
	life threadLife

	// status is the agent's status and who watches it (thread_status.go).
	status threadStatus
}

// finalised reports the thread closed, not only closing (finishClose ran:
// its status feeds are closed, a new observer gets a closed feed).
func (t *Thread) finalised() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.life.closed
}

// info snapshots the thread for display.
func (t *Thread) info() protocol.ThreadInfo {
	st, _ := t.Status()
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := protocol.ThreadInfo{
		ID: t.id, ParentID: t.parentID, ForkedFromID: t.forkedFrom, Depth: t.depth, Source: t.source,
		AgentType: t.agentType, AgentName: t.agentName, Nickname: t.nickname,
		Model: t.modelName, Provider: t.e.opts.Provider, ReasoningEffort: t.effort,
		Cwd: t.cwd, Sandbox: t.sandbox, ApprovalPolicy: t.e.ApprovalPolicy(),
		Note: t.note, Name: t.name, SpawnCallID: t.spawnCallID,
		StartedAt: t.createdAt, Status: st, Surface: t.surface, Host: t.host, HostCwd: t.hostCwd(),
	}
	ti.RolloutPath = t.life.rolloutPath
	return ti
}

// recorder is the thread's rollout writer, nil while it has none (closed).
func (t *Thread) recorder() *rollout.Recorder {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.life.rec
}

// publish hands ev to the bus and appends it to t's rollout as one step
// (emitMu), so subscribers get t's events in the order its rollout holds
// them: parallel tool calls and sub-agents' activity publish from their
// own goroutines, and a resumed screen replays the rollout's order.
func (t *Thread) publish(ev protocol.Event) protocol.Event {
	t.emitMu.Lock()
	defer t.emitMu.Unlock()
	ev = t.e.bus.Publish(ev)
	t.record(ev)
	return ev
}

// record appends an event to the rollout (written at once).
func (t *Thread) record(ev protocol.Event) {
	if rec := t.recorder(); rec != nil {
		if err := rec.AppendEvent(ev); err != nil {
			t.e.warnOnce(t.id, "rollout", err)
		}
	}
}

func (t *Thread) recordItem(it protocol.Item) {
	if rec := t.recorder(); rec != nil {
		if err := rec.AppendItem(it); err != nil {
			t.e.warnOnce(t.id, "rollout", err)
		}
	}
}

func (t *Thread) flush() {
	if rec := t.recorder(); rec != nil {
		if err := rec.Flush(); err != nil {
			t.e.warnOnce(t.id, "rollout", err)
		}
	}
}

// sync fsyncs the rollout (at turn ends; never on the per-item path).
func (t *Thread) sync() {
	if rec := t.recorder(); rec != nil {
		// A close that raced ahead has already flushed and closed the file.
		if err := rec.Sync(); err != nil && !t.isClosed() {
			t.e.warnOnce(t.id, "rollout", err)
		}
	}
}

// appendHistory adds items to the history and the rollout.
func (t *Thread) appendHistory(items ...protocol.Item) {
	t.budget.append(items...)
	for _, it := range items {
		t.recordItem(it)
	}
}

// enqueue adds input for a thread whose loop has not started yet (spawn).
func (t *Thread) enqueue(items ...protocol.Item) {
	t.materialize()
	t.mu.Lock()
	queued := t.queueLocked("", items)
	t.mu.Unlock()
	t.recordQueued(queued)
	t.signal()
}

// queueLocked appends input to pending (t.mu held) and returns it with its
// ids, for recordQueued once mu is released.
func (t *Thread) queueLocked(clientID string, items []protocol.Item) []queuedInput {
	queued := t.turn.queue(clientID, items)
	if t.firstPrompt == "" {
		// A notice queued before the first message (hook context) is no title.
		t.firstPrompt = rollout.FirstPrompt(items)
	}
	return queued
}

// signal wakes the loop.
func (t *Thread) signal() {
	select {
	case t.life.wake <- struct{}{}:
	default:
	}
}

// deliver queues follow-up input; it reports false for a closed thread.
// Queueing, the interrupt and the running mark are one critical section
// (statusMu, then mu), and the turn takes input only under mu after
// checking its context, so an interrupting message can never be taken by
// the turn it cancels and then dropped unanswered; and the end of a turn
// (same locks) either sees the new input and runs another turn without
// announcing a final status, or announces its status before this marks
// the thread running — a wait issued right after never sees the previous
// final status.
func (t *Thread) deliver(interrupt bool, items ...protocol.Item) bool {
	return t.deliverAs("", interrupt, items...)
}

// deliverAs is deliver for input a front end named (Op.ClientID): the turn
// that takes it echoes clientID in turn_started.
func (t *Thread) deliverAs(clientID string, interrupt bool, items ...protocol.Item) bool {
	if len(items) > 0 {
		t.materialize()
	}
	t.status.mu.Lock()
	t.mu.Lock()
	if t.life.gone() {
		t.mu.Unlock()
		t.status.mu.Unlock()
		return false
	}
	queued := t.queueLocked(clientID, items)
	t.turn.halted = false // new input resumes work, with everything queued
	busy := t.turn.running
	if interrupt {
		t.turn.stop()
	}
	t.mu.Unlock()
	t.recordQueued(queued)
	changed := false
	if !busy {
		changed = t.setStatusLocked(protocol.Running())
	}
	t.status.mu.Unlock()
	if changed {
		t.e.updateIndex(t)
	}
	t.signal()
	return true
}

// interrupt stops the thread's work: the running turn is cancelled, and
// input still queued (a turn about to start, a message that arrived during
// the turn) does not start another turn until new input is delivered, so
// an interrupted agent really stops. A thread that was only about to work
// becomes interrupted at once.
func (t *Thread) interrupt() {
	t.transition(func(cur protocol.AgentStatus) (protocol.AgentStatus, bool) {
		t.turn.halted = true
		t.turn.stop()
		queuedOnly := !t.turn.running && len(t.turn.pending) > 0
		return protocol.Interrupted(), queuedOnly && cur.IsActive()
	})
}

func (t *Thread) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.life.gone()
}
