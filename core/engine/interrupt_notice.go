package engine

import "github.com/grovecli/grove/protocol"

// interruptedGuidance is what an interrupted turn leaves for the model
// (agents.interrupt_message; Codex records the same kind of marker in
// codex-rs/core/src/tasks/mod.rs when a turn is interrupted). grove stops
// the turn's running tool calls, so the words say that.
const interruptedGuidance = "The user interrupted the previous turn on purpose. Tool calls that were still running were stopped and may have partly run: check their effects before repeating them."

// noteInterrupted records the notice at the end of an interrupted turn,
// unless the user turned it off: the next request then tells the model
// that the stop was the user's choice, whoever interrupted (the user, or
// a parent's send_input with interrupt).
func (t *Thread) noteInterrupted() {
	t.appendHistory(t.e.interruptNotice()...)
}

// interruptNotice is the notice an interrupted turn leaves, none when
// agents.interrupt_message is off.
func (e *Engine) interruptNotice() []protocol.Item {
	if e.opts.NoInterruptMessage {
		return nil
	}
	return []protocol.Item{protocol.TurnAbortedNotice(interruptedGuidance)}
}

// AbortedByFork is the output a fork gives a call its source had not
// finished when the fork was taken.
const AbortedByFork = "aborted: the conversation was forked before this call finished"

// closeForkedTurn closes, in a fork's copy, the turn the source left open
// (it is running in another grove, or that grove died) as an interrupted
// turn: every call answered (a finished call keeps its real output) and
// the notice an interrupt leaves, not the crash notice a resume gives: a
// live source did not crash (Codex: thread_manager.rs
// fork_history_from_snapshot, ForkSnapshot::Interrupted, appends
// interrupted_turn_history_marker when the source is mid-turn, nothing
// when the marker is disabled).
func (e *Engine) closeForkedTurn(r *crashRepair) []protocol.Item {
	out := make([]protocol.Item, 0, len(r.outputs)+1)
	for _, it := range r.outputs {
		if it.Output == AbortedByExit {
			it.Output = AbortedByFork
		}
		out = append(out, it)
	}
	return append(out, e.interruptNotice()...)
}
