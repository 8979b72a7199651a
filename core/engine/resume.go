package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// resumeThread reopens a closed agent from its rollout with its history; on
// an active agent it is a no-op. The depth limit applies.
func (e *Engine) resumeThread(id protocol.ThreadID) (protocol.AgentStatus, error) {
	t := e.thread(id)
	if t == nil {
		return protocol.AgentStatus{}, fmt.Errorf("no agent %s in this session", id)
	}
	t.mu.Lock()
	closed, closing, path := t.life.closed, t.life.closing, t.life.rolloutPath
	t.mu.Unlock()
	if closing {
		return protocol.AgentStatus{}, &AgentClosingError{ID: id}
	}
	if !closed {
		st, _ := t.Status()
		return st, nil
	}
	if t.depth > e.opts.MaxDepth {
		return protocol.AgentStatus{}, fmt.Errorf("cannot resume agent %s: its depth %d exceeds agents.max_depth = %d", id, t.depth, e.opts.MaxDepth)
	}
	if path == "" {
		return protocol.AgentStatus{}, fmt.Errorf("cannot resume agent %s: it has no rollout file", id)
	}
	sess, err := rollout.Read(path)
	if err != nil {
		return protocol.AgentStatus{}, fmt.Errorf("cannot resume agent %s: %w", id, err)
	}
	crashWarning, err := repairAfterCrash(sess)
	if err != nil {
		return protocol.AgentStatus{}, fmt.Errorf("cannot resume agent %s: %w", id, err)
	}
	if crashWarning != "" {
		sess.Warnings = append(sess.Warnings, crashWarning)
	}
	rec, err := rollout.OpenAppend(path)
	if err != nil {
		return protocol.AgentStatus{}, fmt.Errorf("cannot resume agent %s: %w", id, err)
	}
	for _, w := range sess.Warnings {
		e.bus.Publish(protocol.NewEvent(id, "", protocol.WarningMsg{Text: w}))
	}
	last := lastAssistantMessage(sess.Items)
	t.mu.Lock()
	t.budget.set(sess.Items)
	t.life.reopen(rec)
	t.turn.lastMessage = last
	t.mu.Unlock()
	// A reopened agent is idle, waiting for input.
	st := protocol.Completed(last, last != "")
	t.setStatus(st)
	e.noteGoneSessions(t, sess.Items)
	e.tools.RestoreThread(t.id, t.cwd, sess.Events)
	if p := e.thread(t.parentID); p != nil && !p.isClosed() {
		e.startObserver(p, t, t.spawnCallID)
	}
	t.restoreQueued(untakenInput(sess))
	e.startLoop(t)
	e.watchRestored(t)
	return st, nil
}

func lastAssistantMessage(items []protocol.Item) string {
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type == protocol.ItemMessage && items[i].Role == protocol.RoleAssistant {
			return items[i].Content
		}
	}
	return ""
}

// ResumeSession rebuilds a past session: the root's history (its rollout is
// reopened for appending) and its tree of children, registered as closed and
// resumable with resume_agent.
func (e *Engine) ResumeSession(id string) (protocol.ThreadID, error) {
	p, err := e.readPastRoot("resume", id)
	if err != nil {
		return "", err
	}
	sess := p.sess
	// A session whose grove died mid-turn resumes with that turn shown as
	// interrupted and its running calls answered as aborted.
	crashWarning, err := repairAfterCrash(sess)
	if err != nil {
		return "", fmt.Errorf("resume %s: %w", id, err)
	}
	status := protocol.Completed(lastAssistantMessage(sess.Items), lastAssistantMessage(sess.Items) != "")
	if crashWarning != "" {
		sess.Warnings = append(sess.Warnings, crashWarning)
		status = protocol.Interrupted()
	}
	m := sess.Meta
	root, err := e.newThread(threadSpec{
		surface: p.surface, id: m.ID, source: protocol.SourceResumed, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		cwd: p.cwd, sandbox: e.opts.Sandbox, note: p.note, name: p.name, history: sess.Items, host: e.opts.HostName,
		createdAt: m.Timestamp, rolloutPath: p.path, status: status, firstPrompt: p.firstPrompt, usage: sess.TotalUsage(),
		forkedFrom: m.ForkedFromID,
	})
	if err != nil {
		return "", err
	}
	for _, w := range sess.Warnings {
		e.bus.Publish(protocol.NewEvent(root.id, "", protocol.WarningMsg{Text: w}))
	}
	e.noteGoneSessions(root, sess.Items)
	// The tools get back what the earlier runs did (the files Read).
	e.tools.RestoreThread(root.id, root.cwd, sess.Events)
	e.restoreInbox(root, sess.Events)
	e.tellUnfinishedReverts(root, sess.Events)
	if err := e.registerClosedChildren(root); err != nil {
		e.bus.Publish(protocol.NewEvent(root.id, "", protocol.WarningMsg{Text: fmt.Sprintf("some sub-agents of this session could not be restored: %v", err)}))
	}
	// The root's index line was written before its children were back: it
	// counted none, which a picker (or a crash now) would keep showing.
	e.updateIndex(root)
	root.restoreQueued(untakenInput(sess))
	e.startLoop(root)
	e.watchRestored(root)
	return root.id, nil
}

func (e *Engine) registerClosedChildren(parent *Thread) error {
	kids, err := rollout.Children(e.opts.Home, parent.id)
	if err != nil {
		return err
	}
	var firstErr error
	for _, k := range kids {
		sess, err := rollout.Read(k.RolloutPath)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		// A child that was running when grove died is repaired now, so
		// its file and its resumed history say what happened.
		if _, err := repairAfterCrash(sess); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("agent %s: %w", sess.Meta.ID, err)
		}
		m := sess.Meta
		note := sess.Note
		if !sess.NoteSet {
			note = m.Note
		}
		// A resumed child keeps the surface its rollout records; an older
		// rollout's gets its role's, else its parent's.
		surface := parent.surface
		if m.Surface != nil {
			surface = *m.Surface
		} else if tpl, terr := e.opts.Templates.Lookup(m.AgentType); m.AgentType != "" && terr == nil && tpl.Surface != "" {
			if s, serr := e.selectSurface(SurfaceQuery{Model: m.Model, Template: tpl.Surface, Parent: parent.surface}); serr == nil {
				surface = s
			}
		}
		child, err := e.newThread(threadSpec{
			surface: surface, id: m.ID, parent: parent, source: m.Source, agentType: m.AgentType, agentName: m.AgentName, nickname: m.AgentNickname,
			spawnCallID: m.SpawnCallID, model: m.Model, effort: m.ReasoningEffort, cwd: m.Cwd,
			sandbox: m.Sandbox, allow: m.AllowList, deny: m.DenyList, rolePrompt: m.Instructions, exactInstructions: m.ExactInstructions,
			note: note, history: sess.Items, createdAt: m.Timestamp,
			rolloutPath: k.RolloutPath, status: protocol.Shutdown(), closed: true, host: m.Host, usage: sess.TotalUsage(),
		})
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		e.restoreInbox(child, sess.Events)
		e.tellUnfinishedReverts(child, sess.Events)
		if err := e.registerClosedChildren(child); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// pastRoot is a past session's root, read back to be reopened.
type pastRoot struct {
	path    string // its rollout
	sess    *rollout.Session
	note    string
	name    string // the index entry's thread name
	cwd     string
	surface string
	// firstPrompt is the session's title in the index.
	firstPrompt string
}

// readPastRoot finds a past session by id (or prefix) and reads its root's
// rollout; verb names the operation in errors ("resume", "fork", "view").
// A fork reads ForkHome's store when one is set; an archived session is
// an ArchivedError.
func (e *Engine) readPastRoot(verb, id string) (*pastRoot, error) {
	home := e.opts.Home
	if verb == "fork" && e.opts.ForkHome != "" {
		home = e.opts.ForkHome
	}
	entry, err := rollout.FindSession(home, id)
	if err != nil {
		return nil, err
	}
	if entry.Archived {
		// Its rollout is in archived_sessions/: continuing it would bring
		// back a session the user put away (Codex refuses it too).
		return nil, &rollout.ArchivedError{ID: entry.ID}
	}
	sess, err := rollout.Read(entry.RolloutPath)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", verb, id, err)
	}
	p := &pastRoot{path: entry.RolloutPath, sess: sess, note: sess.Note, name: entry.ThreadName, cwd: sess.Meta.Cwd, firstPrompt: entry.FirstPrompt}
	if !sess.NoteSet {
		p.note = sess.Meta.Note
	}
	if p.cwd == "" {
		p.cwd = e.opts.Cwd
	}
	if p.surface, err = e.selectSurface(SurfaceQuery{Model: e.opts.Model}); err != nil {
		return nil, err
	}
	return p, nil
}
