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
	if t.e.opts.NoInterruptMessage {
		return
	}
	t.appendHistory(protocol.TurnAbortedNotice(interruptedGuidance))
}
