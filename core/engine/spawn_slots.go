package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// replySlots settles the agents.max_threads slots of one reply's spawning
// tool calls in call order, while the calls run at once. Before any runs,
// the calls reserve in call order until the limit is reached; the rest
// wait in line. A slot an earlier call gives back (its spawn failed: an
// unknown agent_type, bad arguments, an error after reservation) passes to
// the first call still waiting, and a waiting call is refused only once
// no earlier call holds a slot it could still give back. So of twenty
// spawns under a limit of twelve the first twelve asked for run, and if
// the third fails the thirteenth runs instead: the result is the one had
// the failed call never taken a slot, whatever order the calls end in.
type replySlots struct {
	tree *threadTree

	mu      sync.Mutex
	tickets []*slotTicket // the spawning calls, in call order
}

// ticketState is where a spawning call stands in its reply's line.
type ticketState int

const (
	// ticketWaiting: no slot yet; an earlier call may still give one back.
	ticketWaiting ticketState = iota
	// ticketHeld: a slot reserved in the tree, not yet handed to a thread.
	ticketHeld
	// ticketSettled: the slot went to a thread or on to a later call, or
	// the call was refused or ended without asking.
	ticketSettled
)

// slotTicket is one spawning call's place in its reply's line.
type slotTicket struct {
	q      *replySlots
	caller protocol.ThreadID
	callID string

	// Guarded by q.mu.
	state   ticketState
	taken   bool          // the call's spawn asked for its slot
	refused error         // the limit's refusal, for a call that got no slot
	decided chan struct{} // closed when the ticket stops waiting
}

type slotTicketKey struct{}

// reserveSpawnSlots lines up, in call order, the reply's calls that will
// start a sub-agent (tools.Spawner); the others get no ticket. only is the
// grace step's tools (its other calls run nothing).
func (t *Thread) reserveSpawnSlots(calls []model.ToolCallRequest, only map[string]bool) []*slotTicket {
	if t.depth+1 > t.e.opts.MaxDepth {
		return nil // every spawn is refused for its depth, holding no slot
	}
	t.mu.Lock()
	route := tools.Route{Own: t.run.own, Refused: t.refusedBySurface, Allow: t.toolAllowed}
	t.mu.Unlock()
	q := &replySlots{tree: &t.e.tree}
	var tickets []*slotTicket
	var full error
	for i, c := range calls {
		if only != nil && !only[c.Name] || c.Custom || !t.e.tools.Spawns(c.Name, []byte(c.Arguments), route) {
			continue
		}
		if tickets == nil {
			tickets = make([]*slotTicket, len(calls))
		}
		tk := &slotTicket{q: q, caller: t.id, callID: c.CallID, decided: make(chan struct{})}
		// Once one call is refused the later ones wait behind it, even if
		// another agent ends meanwhile: no later call is ever ahead.
		if full == nil {
			full = t.e.reserveSlot()
		}
		if full == nil {
			tk.state = ticketHeld
			close(tk.decided)
		} else {
			tk.refused = full
		}
		tickets[i] = tk
		q.tickets = append(q.tickets, tk)
	}
	if q.tickets != nil {
		q.mu.Lock()
		q.refuseIfNoneHeld()
		q.mu.Unlock()
	}
	return tickets
}

// with is ctx carrying the ticket to the call's spawn (ctx as is for nil).
func (tk *slotTicket) with(ctx context.Context) context.Context {
	if tk == nil {
		return ctx
	}
	return context.WithValue(ctx, slotTicketKey{}, tk)
}

// done ends the call's place in line: a slot its spawn did not take over
// (refused by a hook, bad arguments, a denied working directory…) passes
// on, and a call still waiting leaves the line.
func (tk *slotTicket) done() {
	if tk == nil {
		return
	}
	tk.q.mu.Lock()
	defer tk.q.mu.Unlock()
	tk.q.leave(tk)
}

// leave settles tk, passing on a slot it holds. Called with q.mu held.
func (q *replySlots) leave(tk *slotTicket) {
	switch tk.state {
	case ticketWaiting:
		tk.state = ticketSettled
		close(tk.decided)
	case ticketHeld:
		tk.state = ticketSettled
		q.passOn()
		q.refuseIfNoneHeld()
	}
}

// handedOver settles tk once its slot belongs to the spawned thread.
func (tk *slotTicket) handedOver() {
	tk.q.mu.Lock()
	defer tk.q.mu.Unlock()
	if tk.state == ticketHeld {
		tk.state = ticketSettled
		tk.q.refuseIfNoneHeld()
	}
}

// passOn gives a slot a call let go of to the first call still waiting,
// or back to the tree when none waits. Called with q.mu held.
func (q *replySlots) passOn() {
	for _, w := range q.tickets {
		if w.state == ticketWaiting {
			w.state, w.refused = ticketHeld, nil
			close(w.decided)
			return
		}
	}
	q.tree.release()
}

// refuseIfNoneHeld refuses every waiting call once no call holds a slot
// it could still give back (a held call is always ahead of a waiting one).
// Called with q.mu held.
func (q *replySlots) refuseIfNoneHeld() {
	for _, tk := range q.tickets {
		if tk.state == ticketHeld {
			return
		}
	}
	for _, tk := range q.tickets {
		if tk.state == ticketWaiting {
			tk.state = ticketSettled
			close(tk.decided)
		}
	}
}

// slot is a max_threads slot a spawn holds until its thread is registered
// (handedOver) or the spawn fails (release).
type slot struct {
	tk   *slotTicket // nil: reserved on its own, outside any reply's line
	tree *threadTree
}

// release gives back the slot of a spawn that created nothing: to the
// next call waiting in its reply's line, else to the tree.
func (s slot) release() {
	if s.tk == nil {
		s.tree.release()
		return
	}
	s.tk.q.mu.Lock()
	defer s.tk.q.mu.Unlock()
	s.tk.q.leave(s.tk)
}

// handedOver records that the registered thread now counts for the slot.
func (s slot) handedOver() {
	if s.tk != nil {
		s.tk.handedOver()
	}
}

// takeSlot holds a max_threads slot for r's spawn: the one its tool call
// lined up for in call order (waiting until the earlier calls have settled
// theirs), else a new one (a spawn from a front end, or a second spawn in
// one call).
func (e *Engine) takeSlot(ctx context.Context, r spawnRequest) (slot, error) {
	tk, _ := ctx.Value(slotTicketKey{}).(*slotTicket)
	if tk == nil || tk.caller != r.caller.id || tk.callID != r.callID {
		return slot{tree: &e.tree}, e.reserveSlot()
	}
	q := tk.q
	q.mu.Lock()
	taken := tk.taken
	tk.taken = true
	q.mu.Unlock()
	if taken {
		return slot{tree: &e.tree}, e.reserveSlot()
	}
	select {
	case <-tk.decided:
	case <-ctx.Done():
		q.mu.Lock()
		q.leave(tk)
		q.mu.Unlock()
		return slot{}, fmt.Errorf("waiting for an agents.max_threads slot: %w", ctx.Err())
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if tk.state != ticketHeld {
		if tk.refused == nil { // left the line meanwhile (cannot happen before done)
			return slot{}, fmt.Errorf("spawn call %s already ended", tk.callID)
		}
		return slot{}, tk.refused
	}
	return slot{tk: tk, tree: &e.tree}, nil
}
