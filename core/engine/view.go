package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// ViewSession opens a past session without writing to it: the root and
// its tree are registered closed, from their rollouts as they are (no
// crash repair), so a front end can show a session that another grove is
// writing. Input to the root reopens it as resume_agent does, which takes
// the session's lock: while the other grove holds it, the input is refused
// with that grove named; once it has exited, the input continues the
// session.
func (e *Engine) ViewSession(id string) (protocol.ThreadID, error) {
	p, err := e.readPastRoot("view", id)
	if err != nil {
		return "", err
	}
	sess, m := p.sess, p.sess.Meta
	status := protocol.Shutdown()
	if sess.LastStatus != nil {
		status = *sess.LastStatus
	}
	root, err := e.newThread(threadSpec{
		id: m.ID, source: protocol.SourceResumed, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		surface: p.surface, cwd: p.cwd, sandbox: e.opts.Sandbox, note: p.note, history: sess.Items, host: e.opts.HostName,
		createdAt: m.Timestamp, rolloutPath: p.path, status: status, closed: true, usage: sess.TotalUsage(),
	})
	if err != nil {
		return "", err
	}
	if err := e.registerClosedChildren(root); err != nil {
		e.bus.Publish(protocol.NewEvent(root.id, "", protocol.WarningMsg{Text: fmt.Sprintf("some sub-agents of this session could not be shown: %v", err)}))
	}
	return root.id, nil
}
