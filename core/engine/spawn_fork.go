package engine

import (
	"errors"

	"github.com/grovecli/grove/protocol"
)

// Codex's spawn_agent can start a child on a copy of its parent's
// conversation: fork_context (v1) copies all of it, fork_turns (v2) "all",
// "none" or the last N turns. The copy is what the parent's model saw:
// tool calls still waiting for their output (the spawn_agent call itself)
// and reasoning items (opaque state of the parent's own requests) are
// left out, and a notice from grove marks where the parent's part ends.

// errFullForkOverrides is Codex's refusal of a full-history fork that
// also asks for another role or model (the child inherits them).
//
//lint:ignore ST1005 Codex's exact refusal, as the model was trained to read it
var errFullForkOverrides = errors.New("Full-history forked agents inherit the parent agent type, model, and reasoning effort; omit agent_type, model, and reasoning_effort, or spawn without a full-history fork.")

// forkEnd is the notice that closes the copied conversation.
const forkEnd = "The conversation above is your parent agent's, copied so you know its context. You are now a sub-agent: do only the task in the next message, and report back."

// forkedHistory is the part of parent's history a child starts from:
// turns < 0 all of it, else the last turns user turns.
func forkedHistory(parent []protocol.Item, turns int) []protocol.Item {
	if turns == 0 {
		return nil
	}
	start := 0
	if turns > 0 {
		seen := 0
		for i := len(parent) - 1; i >= 0; i-- {
			if it := parent[i]; it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser && !it.IsGroveNotice() {
				seen++
				if seen == turns {
					start = i
					break
				}
			}
		}
	}
	answered := map[string]bool{}
	for _, it := range parent[start:] {
		if it.Type == protocol.ItemFunctionCallOutput {
			answered[it.CallID] = true
		}
	}
	out := make([]protocol.Item, 0, len(parent)-start+1)
	for _, it := range parent[start:] {
		switch {
		case it.Type == protocol.ItemReasoning, it.Type == protocol.ItemCompaction && turns > 0:
			continue
		case it.Type == protocol.ItemFunctionCall && !answered[it.CallID]:
			continue
		case it.Type == protocol.ItemFunctionCallOutput && !callIn(parent[start:], it.CallID):
			continue // its call is before the copied turns
		}
		out = append(out, it)
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, protocol.GroveNotice(forkEnd))
}

func callIn(items []protocol.Item, callID string) bool {
	for _, it := range items {
		if it.Type == protocol.ItemFunctionCall && it.CallID == callID {
			return true
		}
	}
	return false
}
