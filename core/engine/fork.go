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
	p, err := e.readPastRoot("fork", id)
	if err != nil {
		return "", err
	}
	sess := p.sess
	history := sess.Items
	if r := planCrashRepair(sess); r != nil {
		history = append(append([]protocol.Item(nil), history...), r.items()...)
	}
	m := sess.Meta
	last := lastAssistantMessage(history)
	root, err := e.newThread(threadSpec{
		surface: p.surface, source: protocol.SourceRoot, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		cwd: p.cwd, sandbox: e.opts.Sandbox, host: e.opts.HostName, note: fmt.Sprintf("fork of %s", m.ID), history: history, firstPrompt: p.firstPrompt,
		forkedFrom: m.ID, status: protocol.Completed(last, last != ""),
	})
	if err != nil {
		return "", err
	}
	// The copy is the fork's own record: a resume of the fork rebuilds it.
	for _, it := range history {
		root.recordItem(it)
	}
	root.sync()
	e.updateIndex(root)
	e.startLoop(root)
	return root.id, nil
}
