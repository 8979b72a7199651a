package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// queuedInput is input waiting for a turn to take it. id ties its
// input_queued rollout line to the user_message / agent_input event of the
// turn that takes it, so a resume knows exactly what never reached a turn.
type queuedInput struct {
	id       string
	clientID string // Op.ClientID, echoed in turn_started ("" for none)
	item     protocol.Item
}

// recordQueued writes queued input to the rollout at once (flushed): until
// a turn takes it, it lives only in memory, and kill -9 would lose it.
// These lines are not published: front ends hear of the input when a turn
// takes it.
func (t *Thread) recordQueued(queued []queuedInput) {
	if len(queued) == 0 {
		return
	}
	for _, q := range queued {
		it := q.item
		ev := protocol.Event{Type: protocol.EventInputQueued, ThreadID: t.id, Timestamp: t.e.now(), Input: &it, InputID: q.id}
		if q.clientID != "" {
			ev.ClientIDs = []string{q.clientID}
		}
		t.record(ev)
	}
	t.flush()
}

// materialize puts a new root's rollout on disk before its first message
// is queued, and lists it in the session index then: before the loop can
// take the input, so the session is findable whatever the turn meets (a
// disk that fills during it).
func (t *Thread) materialize() {
	rec := t.recorder()
	if rec == nil || rec.Materialized() {
		return
	}
	if err := rec.Materialize(); err != nil {
		t.e.warnOnce(t.id, "rollout", err)
		return
	}
	t.e.updateIndex(t)
}

// takeInput moves queued input into the turn: history, rollout and the
// event that tells front ends (with the input's id).
func (t *Thread) takeInput(turnID string, input []queuedInput) {
	t.appendHistory(t.takeNotices()...)
	for _, q := range input {
		t.appendHistory(q.item)
		var clientIDs []string
		if q.clientID != "" {
			clientIDs = []string{q.clientID}
		}
		t.publish(inputEvent(t.id, turnID, q.item, q.id, clientIDs))
	}
	// A skill named as $name joins the conversation after the input.
	t.appendHistory(t.mentionedSkills(turnID, input)...)
}

// clientIDs lists the front ends' names for input, once each, in order.
func clientIDs(input []queuedInput) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range input {
		if q.clientID != "" && !seen[q.clientID] {
			seen[q.clientID] = true
			out = append(out, q.clientID)
		}
	}
	return out
}

// untakenInput is the input a rollout recorded as queued that no turn took,
// in queue order.
func untakenInput(sess *rollout.Session) []queuedInput {
	taken := map[string]bool{}
	for _, ev := range sess.Events {
		if (ev.Type == protocol.EventUserMessage || ev.Type == protocol.EventAgentInput) && ev.InputID != "" {
			taken[ev.InputID] = true
		}
	}
	var out []queuedInput
	for _, ev := range sess.Events {
		if ev.Type != protocol.EventInputQueued || ev.Input == nil || ev.InputID == "" || taken[ev.InputID] {
			continue
		}
		taken[ev.InputID] = true // a line read twice is delivered once
		q := queuedInput{id: ev.InputID, item: *ev.Input}
		if len(ev.ClientIDs) == 1 {
			q.clientID = ev.ClientIDs[0]
		}
		out = append(out, q)
	}
	return out
}

// restoreQueued puts back input a dead grove had queued but no turn took,
// with its original ids (so it is delivered once, however often the session
// is resumed), and sets the thread to work on it.
func (t *Thread) restoreQueued(input []queuedInput) {
	if len(input) == 0 {
		return
	}
	t.transition(func(protocol.AgentStatus) (protocol.AgentStatus, bool) {
		t.turn.pending = append(t.turn.pending, input...)
		t.turn.halted = false
		return protocol.Running(), !t.turn.running
	})
	t.e.bus.Publish(protocol.NewEvent(t.id, "", protocol.WarningMsg{
		Text: fmt.Sprintf("%d queued message(s) had not reached the agent when grove exited; delivering them now", len(input))}))
	t.signal()
}
