package engine

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Thread is one agent conversation with its own turn loop.
type Thread struct {
	e *Engine

	// Fixed at creation.
	id          protocol.ThreadID
	parentID    protocol.ThreadID
	depth       int
	source      protocol.ThreadSource
	agentType   string
	agentName   string
	nickname    string // the sub-agent's short unique name (nickname.go)
	description string
	spawnCallID string
	createdAt   time.Time
	host        string // [hosts.<name>] of its tools ("" = this machine)
	hostWS      string // that host's workspace (host_cwd.go)
	allow, deny []string
	// surface names the delegation tools this thread sees (see Surface).
	surface string
	// run holds what a surface added at spawn (SpawnChild): a tool filter,
	// thread-own tools, limits; zero for an ordinary thread.
	run childRun

	mu           sync.Mutex
	emitMu       sync.Mutex // publish + record of one event (publish)
	instructions string
	// agentsCtx is the user-role AGENTS.md block that opens every request
	// (agentsContext); view starts with it.
	agentsCtx []protocol.Item
	modelName string
	effort    string
	cwd       string
	sandbox   protocol.SandboxPolicy
	// summary is the reasoning summary asked of the model ("" = auto);
	// nextSchema constrains the next turn's reply and turnSchema the
	// running turn's (turn/start's outputSchema).
	summary     string
	nextSchema  json.RawMessage
	turnSchema  json.RawMessage
	note        string
	name        string
	firstPrompt string
	history     []protocol.Item
	// Context size bookkeeping (context_budget.go): estTokens estimates
	// history[:estItems]; usageInput is the provider's input_tokens for
	// the last request, which carried history[:usageAt].
	estItems   int
	estTokens  int64
	usageInput int64
	usageAt    int
	// view is the history as the model sees it (modelItems), converted
	// once per item; prefix keeps its encoded form between requests.
	// Both start over when the history is replaced.
	view   []protocol.Item
	prefix *model.PrefixCache
	// compactedSinceReply: compacted, and no model reply since.
	compactedSinceReply bool
	// compactFailures counts automatic compactions failed in a row;
	// compactSkip is how many more steps skip one (back off across steps).
	compactFailures, compactSkip int
	// compactPending asks the loop for a manual compaction (OpCompact),
	// with compactNote's extra instructions.
	compactPending bool
	compactNote    string
	// prewarmed: the thread's tools were prepared (prewarmTools).
	prewarmed bool
	pending   []queuedInput
	// notices wait for the running turn's next request (notify).
	notices     []protocol.Item
	usage       protocol.TokenUsage
	lastTool    string
	steps       int    // model calls in the current/last turn
	toolCalls   int    // tool calls in every turn
	limitHit    string // LimitMaxSteps/LimitTimeout reached in the last turn
	lastMessage string
	children    []protocol.ThreadID
	turnCancel  context.CancelFunc
	turnID      string
	running     bool // a turn is in progress
	// halted: interrupted (user, abort, an ancestor's interrupt); queued
	// input waits for the next delivery instead of starting a turn.
	halted  bool
	closing bool
	closed  bool
	// hooksStarted: SessionStart/SubagentStart ran; hookToolCtx holds
	// PreToolUse context until its call's output (hooks.go).
	hooksStarted bool
	hookToolCtx  map[string][]string
	rec          *rollout.Recorder
	rolloutPath  string
	specs        []model.ToolSpec
	ctx          context.Context
	cancel       context.CancelFunc
	wake         chan struct{}
	done         chan struct{}

	// statusMu serialises status transitions so their events and rollout
	// lines appear in the order they happened.
	statusMu sync.Mutex
	status   protocol.AgentStatus
	statusAt time.Time
	changed  chan struct{} // closed and replaced on every status change
	feeds    []*statusFeed
}

// Status returns the current status and when it began.
func (t *Thread) Status() (protocol.AgentStatus, time.Time) {
	t.statusMu.Lock()
	defer t.statusMu.Unlock()
	return t.status, t.statusAt
}

// statusAndWatch returns the status and a channel closed on the next change.
func (t *Thread) statusAndWatch() (protocol.AgentStatus, <-chan struct{}) {
	t.statusMu.Lock()
	defer t.statusMu.Unlock()
	return t.status, t.changed
}

// setStatus records a transition: event, rollout line (flushed), waiters
// and observers, and the session index.
func (t *Thread) setStatus(s protocol.AgentStatus) {
	t.statusMu.Lock()
	changed := t.setStatusLocked(s)
	t.statusMu.Unlock()
	// Outside statusMu: the index walks the tree under e.mu.
	if changed {
		t.e.updateIndex(t)
	}
}

// setStatusLocked is setStatus for a caller holding statusMu, minus the
// session index (the caller updates it after unlocking when this reports a
// change).
func (t *Thread) setStatusLocked(s protocol.AgentStatus) bool {
	if t.status.Kind == s.Kind && t.status.Message == s.Message && t.status.HasMessage == s.HasMessage {
		return false
	}
	t.status = s
	t.statusAt = t.e.now()
	st := s
	ev := protocol.NewEvent(t.id, "", protocol.StatusChangedMsg{Status: st})
	ev.Timestamp = t.statusAt
	// The rollout is durable before anyone hears of the change: whoever
	// sees a status (a waiter, the UI, a resume) can rely on the file.
	t.emitMu.Lock() // recorded and published as one step (see publish)
	defer t.emitMu.Unlock()
	t.record(ev)
	t.flush()
	close(t.changed)
	t.changed = make(chan struct{})
	for _, f := range t.feeds {
		f.push(s)
	}
	t.e.bus.Publish(ev)
	return true
}

// subscribeStatus returns a feed of every future status change.
func (t *Thread) subscribeStatus() *statusFeed {
	f := newStatusFeed()
	t.statusMu.Lock()
	if t.closedLocked() {
		f.close()
	} else {
		t.feeds = append(t.feeds, f)
	}
	t.statusMu.Unlock()
	return f
}

func (t *Thread) closedLocked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// closeFeeds ends every observer's stream (the thread was closed).
func (t *Thread) closeFeeds() {
	t.statusMu.Lock()
	for _, f := range t.feeds {
		f.close()
	}
	t.feeds = nil
	t.statusMu.Unlock()
}

// info snapshots the thread for display.
func (t *Thread) info() protocol.ThreadInfo {
	st, _ := t.Status()
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := protocol.ThreadInfo{
		ID: t.id, ParentID: t.parentID, Depth: t.depth, Source: t.source,
		AgentType: t.agentType, AgentName: t.agentName, Nickname: t.nickname,
		Model: t.modelName, Provider: t.e.opts.Provider, ReasoningEffort: t.effort,
		Cwd: t.cwd, Sandbox: t.sandbox, ApprovalPolicy: t.e.ApprovalPolicy(),
		Note: t.note, Name: t.name, SpawnCallID: t.spawnCallID,
		StartedAt: t.createdAt, Status: st, Surface: t.surface, Host: t.host, HostCwd: t.hostCwd(),
	}
	ti.RolloutPath = t.rolloutPath
	return ti
}

func (t *Thread) label() string {
	return protocol.ThreadInfo{ID: t.id, ParentID: t.parentID, AgentType: t.agentType, AgentName: t.agentName}.Label()
}

// role is the agent_type for messages ("default" when none).
func (t *Thread) role() string {
	if t.agentType == "" {
		return "default"
	}
	return t.agentType
}

// recorder is the thread's rollout writer, nil while it has none (closed).
func (t *Thread) recorder() *rollout.Recorder {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rec
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
	t.mu.Lock()
	t.history = append(t.history, items...)
	t.mu.Unlock()
	for _, it := range items {
		t.recordItem(it)
	}
}

// enqueue adds input for a thread whose loop has not started yet (spawn).
func (t *Thread) enqueue(items ...protocol.Item) {
	t.mu.Lock()
	queued := t.queueLocked("", items)
	t.mu.Unlock()
	t.recordQueued(queued)
	t.signal()
}

// queueLocked appends input to pending (t.mu held) and returns it with its
// ids, for recordQueued once mu is released.
func (t *Thread) queueLocked(clientID string, items []protocol.Item) []queuedInput {
	queued := make([]queuedInput, len(items))
	for i, it := range items {
		queued[i] = queuedInput{id: uuid.NewString(), clientID: clientID, item: it}
	}
	t.pending = append(t.pending, queued...)
	if t.firstPrompt == "" {
		// A notice queued before the first message (hook context) is no title.
		t.firstPrompt = rollout.FirstPrompt(items)
	}
	return queued
}

// signal wakes the loop.
func (t *Thread) signal() {
	select {
	case t.wake <- struct{}{}:
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
	t.statusMu.Lock()
	t.mu.Lock()
	if t.closed || t.closing {
		t.mu.Unlock()
		t.statusMu.Unlock()
		return false
	}
	queued := t.queueLocked(clientID, items)
	t.halted = false // new input resumes work, with everything queued
	busy := t.running
	if interrupt && busy && t.turnCancel != nil {
		t.turnCancel()
	}
	t.mu.Unlock()
	t.recordQueued(queued)
	changed := false
	if !busy {
		changed = t.setStatusLocked(protocol.Running())
	}
	t.statusMu.Unlock()
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
	t.statusMu.Lock()
	t.mu.Lock()
	t.halted = true
	if t.running && t.turnCancel != nil {
		t.turnCancel()
	}
	queuedOnly := !t.running && len(t.pending) > 0
	t.mu.Unlock()
	changed := queuedOnly && t.status.IsActive() && t.setStatusLocked(protocol.Interrupted())
	t.statusMu.Unlock()
	if changed {
		t.e.updateIndex(t)
	}
}

func (t *Thread) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed || t.closing
}
