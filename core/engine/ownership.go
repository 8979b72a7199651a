package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// mayControl applies close_agent's ownership rule to every tool that steers
// another agent (send_input, resume_agent, set_thread_note, close_agent):
// the root may act on any thread, a sub-agent only on itself and its
// descendants. Without it a child could interrupt its root or hijack a
// sibling's turn.
func (e *Engine) mayControl(caller, target *Thread) bool {
	return caller.parentID == "" || e.isDescendant(target, caller)
}

// notOwnedError is the tool error for a refused steering call.
func notOwnedError(tool string, id protocol.ThreadID) error {
	return fmt.Errorf("%s refused: agent %s is not this agent or one of its descendants; a sub-agent may only act on itself and its own subtree", tool, id)
}

// checkWaitable refuses wait targets that can never become final while the
// caller waits: the caller itself, and (for a sub-agent) anything outside
// its subtree — its parent is blocked on it, so waiting on an ancestor
// deadlocks, and a sibling belongs to another agent. Unknown ids are left
// to wait, which reports them as not_found.
func (e *Engine) checkWaitable(caller *Thread, ids []protocol.ThreadID) error {
	for _, id := range ids {
		t := e.thread(id)
		if t == nil {
			continue
		}
		if t == caller {
			return fmt.Errorf("wait refused: %s is this agent itself, which cannot finish while it waits; wait on agents you spawned", id)
		}
		if !e.mayControl(caller, t) {
			return fmt.Errorf("wait refused: agent %s is not one of this agent's descendants; waiting on an ancestor or a sibling can deadlock, so a sub-agent may only wait on agents in its own subtree", id)
		}
	}
	return nil
}

// fromAgent relabels input items as a message from agent sender, so the
// receiver's history, rollout and events never present it as the user's.
func fromAgent(sender protocol.ThreadID, items []protocol.Item) []protocol.Item {
	out := make([]protocol.Item, len(items))
	for i, it := range items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			it.Role = protocol.RoleAgent
			it.From = sender
		}
		out[i] = it
	}
	return out
}

// agentInputPrefix starts the label line the model sees above a message
// from another agent.
const agentInputPrefix = "[message from "

// modelItems returns the history as the model receives it: providers know
// only user/assistant/system roles, so a message from another agent goes
// out as user input whose first line names the sending agent.
func (e *Engine) modelItems(receiver *Thread, history []protocol.Item) []protocol.Item {
	out := history
	copied := false
	for i, it := range history {
		if it.Type != protocol.ItemMessage || it.Role != protocol.RoleAgent {
			continue
		}
		if !copied {
			out = append([]protocol.Item(nil), history...)
			copied = true
		}
		it.Role = protocol.RoleUser
		it.Content = e.agentInputLabel(receiver, it.From) + "\n" + it.Content
		it.From = ""
		out[i] = it
	}
	return out
}

func (e *Engine) agentInputLabel(receiver *Thread, from protocol.ThreadID) string {
	who := "agent " + string(from)
	if s := e.thread(from); s != nil {
		who = fmt.Sprintf("agent %s (%s)", s.label(), from)
		if from == receiver.parentID {
			who = "your parent " + who
		}
	}
	return agentInputPrefix + who + "; not from the user]"
}
