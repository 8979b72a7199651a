package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// ForkSession starts a new session that continues from a past one's
// conversation without touching it: the root's history is copied into a
// new rollout (a turn the source left open is closed in the copy only), so
// a session another grove is still writing can be continued side by side.
// Sub-agents are not copied: they belong to the source session.
func (e *Engine) ForkSession(id string) (protocol.ThreadID, error) {
	root, _, err := e.forkRoot(id, 0)
	return root, err
}

// RewindSession is ForkSession cut before the root's userTurns-th last
// user message (1: the last one), the TUI's Esc-Esc backtrack as Codex's
// app_backtrack.rs does it: the source stays as it was, the fork's history
// ends where that message was, and the message's text is returned for the
// user to edit and send again. Sub-agents spawned after the cut are not
// part of the fork (no sub-agent is copied).
func (e *Engine) RewindSession(id string, userTurns int) (protocol.ThreadID, string, error) {
	if userTurns < 1 {
		return "", "", fmt.Errorf("rewind %s: %d user messages back: want 1 or more", id, userTurns)
	}
	return e.forkRoot(id, userTurns)
}

// forkRoot copies the past root id into a new session; userTurns > 0 cuts
// the copy before that user message from the end and returns its text.
func (e *Engine) forkRoot(id string, userTurns int) (protocol.ThreadID, string, error) {
	p, err := e.readPastRoot("fork", id)
	if err != nil {
		return "", "", err
	}
	sess := p.sess
	history, cut, closed := sess.Items, "", false
	if userTurns > 0 {
		at := userMessageFromEnd(history, userTurns)
		if at < 0 {
			return "", "", fmt.Errorf("rewind %s: it has fewer than %d user messages", id, userTurns)
		}
		history, cut = answeredOnly(history[:at]), history[at].Content
	} else if r := planCrashRepair(sess); r != nil {
		history, closed = append(append([]protocol.Item(nil), history...), e.closeForkedTurn(r)...), true
	}
	m := sess.Meta
	last := lastAssistantMessage(history)
	status := protocol.Completed(last, last != "")
	if closed {
		// The copy's last turn ends as an interrupted one (Codex appends
		// TurnAborted to the fork).
		status = protocol.Interrupted()
	}
	root, err := e.newThread(threadSpec{
		surface: p.surface, source: protocol.SourceRoot, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		cwd: p.cwd, sandbox: e.opts.Sandbox, host: e.opts.HostName, note: fmt.Sprintf("fork of %s", m.ID), history: history, firstPrompt: p.firstPrompt,
		forkedFrom: m.ID, status: status,
	})
	if err != nil {
		return "", "", err
	}
	// The copy is the fork's own record: a resume of the fork rebuilds it.
	for _, it := range history {
		root.recordItem(it)
	}
	// The tools get back what the source did before the fork (the files
	// it Read), as a resume of the source gives them; recorded, so a
	// resume of the fork gives them again.
	inherited := inheritedCalls(sess.Events, history, userTurns > 0)
	for _, ev := range inherited {
		ev.ThreadID = root.id
		root.record(ev)
	}
	e.tools.RestoreThread(root.id, root.cwd, inherited)
	root.sync()
	e.updateIndex(root)
	e.startLoop(root)
	return root.id, cut, nil
}

// userMessageFromEnd is the index of the n-th last message the user sent
// (the ones the TUI shows as the user's: grove's notices are not), -1 when
// there are fewer.
func userMessageFromEnd(items []protocol.Item, n int) int {
	seen := 0
	for i := len(items) - 1; i >= 0; i-- {
		if it := items[i]; it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser && !it.IsGroveNotice() {
			if seen++; seen == n {
				return i
			}
		}
	}
	return -1
}

// answeredOnly drops the tool calls a cut left without their output (a
// message steered into a running turn cuts it mid-way): every request
// needs each call answered.
func answeredOnly(items []protocol.Item) []protocol.Item {
	answered := map[string]bool{}
	for _, it := range items {
		if it.Type == protocol.ItemFunctionCallOutput {
			answered[it.CallID] = true
		}
	}
	out := make([]protocol.Item, 0, len(items))
	for _, it := range items {
		if it.Type == protocol.ItemFunctionCall && !answered[it.CallID] {
			continue
		}
		out = append(out, it)
	}
	return out
}

// inheritedCalls are the source's finished tool calls a fork keeps, as
// rollout-only inherited_tool_call lines (outputs dropped, timestamps
// kept): all of them for a fork of the whole conversation, the same a
// resume restores; for a rewind only those whose call is in the history
// kept before the cut, so nothing read after the cut counts (a call a
// compaction folded away counts as not made: a file is read again rather
// than edited unseen).
func inheritedCalls(events []protocol.Event, history []protocol.Item, cut bool) []protocol.Event {
	var kept map[string]bool
	if cut {
		kept = map[string]bool{}
		for _, it := range history {
			if it.Type == protocol.ItemFunctionCall {
				kept[it.CallID] = true
			}
		}
	}
	var out []protocol.Event
	for _, ev := range events {
		if (ev.Type != protocol.EventToolCallEnd && ev.Type != protocol.EventInheritedToolCall) || ev.Tool == nil {
			continue
		}
		if kept != nil && !kept[ev.Tool.CallID] {
			continue
		}
		c := ev.Tool
		out = append(out, protocol.Event{
			Type: protocol.EventInheritedToolCall, Timestamp: ev.Timestamp,
			Tool: &protocol.ToolCall{CallID: c.CallID, Name: c.Name, Kind: c.Kind, Arguments: c.Arguments, IsError: c.IsError},
		})
	}
	return out
}
