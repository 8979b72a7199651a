package engine

import (
	"context"
	"sync"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// slotTicket is the agents.max_threads slot one spawning tool call of a
// reply reserved (or was refused) in call order, before the reply's calls
// ran at once: of twenty spawns under a limit of twelve, the first twelve
// asked for run and the last eight are refused, never a random eight.
type slotTicket struct {
	caller protocol.ThreadID
	callID string

	mu      sync.Mutex
	refused error // the limit's refusal, nil: a slot is held
	claimed bool  // the spawn took the slot over (or the refusal)
}

type slotTicketKey struct{}

// reserveSpawnSlots reserves, in call order, a slot for each of the
// reply's calls that will start a sub-agent; the others get no ticket.
// only is the grace step's tools (its other calls run nothing).
func (t *Thread) reserveSpawnSlots(calls []model.ToolCallRequest, only map[string]bool) []*slotTicket {
	if t.depth+1 > t.e.opts.MaxDepth {
		return nil // every spawn is refused for its depth, holding no slot
	}
	t.mu.Lock()
	route := tools.Route{Own: t.run.own, Refused: t.refusedBySurface, Allow: t.toolAllowed}
	t.mu.Unlock()
	var tickets []*slotTicket
	for i, c := range calls {
		if only != nil && !only[c.Name] || c.Custom || !t.e.tools.Spawns(c.Name, []byte(c.Arguments), route) {
			continue
		}
		if tickets == nil {
			tickets = make([]*slotTicket, len(calls))
		}
		tickets[i] = &slotTicket{caller: t.id, callID: c.CallID, refused: t.e.reserveSlot()}
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

// done gives back the slot of a call that ended without its spawn taking
// it (refused by a hook, an invalid role, a denied working directory…).
func (tk *slotTicket) done(tr *threadTree) {
	if tk == nil {
		return
	}
	tk.mu.Lock()
	release := !tk.claimed && tk.refused == nil
	tk.claimed = true
	tk.mu.Unlock()
	if release {
		tr.release()
	}
}

// takeSlot holds a max_threads slot for r's spawn: the one its tool call
// reserved in call order (or that reservation's refusal), else a new one
// (a spawn from a front end, or a second spawn in one call).
func (e *Engine) takeSlot(ctx context.Context, r spawnRequest) error {
	if tk, _ := ctx.Value(slotTicketKey{}).(*slotTicket); tk != nil && tk.caller == r.caller.id && tk.callID == r.callID {
		tk.mu.Lock()
		taken := !tk.claimed
		tk.claimed = true
		tk.mu.Unlock()
		if taken {
			return tk.refused
		}
	}
	return e.reserveSlot()
}
