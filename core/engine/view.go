package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// ViewSession opens a past session without writing to it: the root and
// its tree are registered closed, from their rollouts as they are (no
// crash repair), so a front end can show a session that another grove is
// writing. Input to the root reopens it as resume_agent does, which takes
// the session's lock: while the other grove holds it, the input is refused
// with that grove named; once it has exited, the input continues the
// session.
func (e *Engine) ViewSession(id string) (protocol.ThreadID, error) {
	entry, err := rollout.FindSession(e.opts.Home, id)
	if err != nil {
		return "", err
	}
	sess, err := rollout.Read(entry.RolloutPath)
	if err != nil {
		return "", fmt.Errorf("view %s: %w", id, err)
	}
	m := sess.Meta
	note := sess.Note
	if !sess.NoteSet {
		note = m.Note
	}
	cwd := m.Cwd
	if cwd == "" {
		cwd = e.opts.Cwd
	}
	surface, err := e.selectSurface(SurfaceQuery{Model: e.opts.Model})
	if err != nil {
		return "", err
	}
	status := protocol.Shutdown()
	if sess.LastStatus != nil {
		status = *sess.LastStatus
	}
	root, err := e.newThread(threadSpec{
		surface: surface, id: m.ID, source: protocol.SourceResumed, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		cwd: cwd, sandbox: e.opts.Sandbox, note: note, history: sess.Items,
		createdAt: m.Timestamp, rolloutPath: entry.RolloutPath, status: status, closed: true,
	})
	if err != nil {
		return "", err
	}
	if err := e.registerClosedChildren(root); err != nil {
		e.bus.Publish(protocol.NewEvent(root.id, "", protocol.WarningMsg{Text: fmt.Sprintf("some sub-agents of this session could not be shown: %v", err)}))
	}
	return root.id, nil
}
