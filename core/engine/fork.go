package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// ForkSession starts a new session that continues from a past one's
// conversation without touching it: the root's history is copied into a
// new rollout (a turn the source left open is closed in the copy only), so
// a session another grove is still writing can be continued side by side.
// Sub-agents are not copied: they belong to the source session.
func (e *Engine) ForkSession(id string) (protocol.ThreadID, error) {
	entry, err := rollout.FindSession(e.opts.Home, id)
	if err != nil {
		return "", err
	}
	sess, err := rollout.Read(entry.RolloutPath)
	if err != nil {
		return "", fmt.Errorf("fork %s: %w", id, err)
	}
	history := sess.Items
	if r := planCrashRepair(sess); r != nil {
		history = append(append([]protocol.Item(nil), history...), r.items()...)
	}
	m := sess.Meta
	cwd := m.Cwd
	if cwd == "" {
		cwd = e.opts.Cwd
	}
	surface, err := e.selectSurface(SurfaceQuery{Model: e.opts.Model})
	if err != nil {
		return "", err
	}
	last := lastAssistantMessage(history)
	root, err := e.newThread(threadSpec{
		surface: surface, source: protocol.SourceRoot, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		cwd: cwd, sandbox: e.opts.Sandbox, note: fmt.Sprintf("fork of %s", m.ID), history: history,
		status: protocol.Completed(last, last != ""),
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
