package engine

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/grovecli/grove/protocol"
)

// turnState is what a thread's loop shares with deliveries, interrupts and
// observers: the input waiting for a turn, the running turn, and what the
// last turn did. It is guarded by the thread's mu, not a lock of its own: a
// delivery decides on the thread being closed, a turn running and the input
// queued in one critical section (see deliverAs), and the end of a turn
// decides on the same three.
type turnState struct {
	pending []queuedInput
	// notices wait for the running turn's next request (notify).
	notices []protocol.Item
	// compactPending asks the loop for a manual compaction (OpCompact),
	// with compactNote's extra instructions.
	compactPending bool
	compactNote    string
	// nextSchema constrains the next turn's reply and turnSchema the
	// running turn's (turn/start's outputSchema).
	nextSchema json.RawMessage
	turnSchema json.RawMessage
	cancel     context.CancelFunc
	id         string
	running    bool // a turn is in progress
	// halted: interrupted (user, abort, an ancestor's interrupt); queued
	// input waits for the next delivery instead of starting a turn.
	halted    bool
	usage     protocol.TokenUsage
	lastTool  string
	steps     int    // model calls in the current/last turn
	toolCalls int    // tool calls in every turn
	limitHit  string // LimitMaxSteps/LimitTimeout reached in the last turn
	// inStep: the time limit or the interrupt that stopped the last turn
	// came while a step (a model call and its tool calls) ran, not between
	// two steps (RunReport.InStep).
	inStep      bool
	lastMessage string
}

// queue appends input with fresh ids (clientID: the front end's name for
// it, echoed by the turn that takes it) and returns it.
func (s *turnState) queue(clientID string, items []protocol.Item) []queuedInput {
	queued := make([]queuedInput, len(items))
	for i, it := range items {
		queued[i] = queuedInput{id: uuid.NewString(), clientID: clientID, item: it}
	}
	s.pending = append(s.pending, queued...)
	return queued
}

// takeNotices returns and clears the notices waiting for the next request.
func (s *turnState) takeNotices() []protocol.Item {
	n := s.notices
	s.notices = nil
	return n
}

// addUsage adds a reply's token usage and returns the thread's total.
func (s *turnState) addUsage(u protocol.TokenUsage) protocol.TokenUsage {
	s.usage.Add(u)
	return s.usage
}

// hasInput reports whether queued input should start a turn (not while
// halted by an interrupt).
func (s *turnState) hasInput() bool { return len(s.pending) > 0 && !s.halted }

// takeInput returns and clears the queued input.
func (s *turnState) takeInput() []queuedInput {
	in := s.pending
	s.pending = nil
	return in
}

// begin marks a turn running under cancel, with a fresh step count; it
// hands the turn its input and the output schema asked for it.
func (s *turnState) begin(id string, cancel context.CancelFunc) []queuedInput {
	s.cancel, s.id, s.running = cancel, id, true
	s.steps, s.limitHit, s.inStep = 0, "", false
	s.turnSchema, s.nextSchema = s.nextSchema, nil
	return s.takeInput()
}

// end marks the turn over; more reports input that arrived during it and
// starts the next turn at once.
func (s *turnState) end() (more bool) {
	s.running, s.cancel = false, nil
	return s.hasInput()
}

// stop cancels the running turn, if any.
func (s *turnState) stop() {
	if s.running && s.cancel != nil {
		s.cancel()
	}
}
