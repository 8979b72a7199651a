package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/grovecli/grove/protocol"
)

// The inbox primitive (seed 001): sub-agents post notifications to their
// parent's inbox while they work, and their final message (or failure)
// becomes a completed (error) notification. The parent is never blocked;
// when unread notifications arrive while it is idle it is woken with a
// short note, once per notification. Every change is an inbox event in the
// parent's rollout, so a resumed session restores the inbox exactly.

// inboxSet holds the inboxes of the session's threads. One lock covers
// them all; it is taken before a thread's locks, never under them.
type inboxSet struct {
	mu sync.Mutex
	by map[protocol.ThreadID]*inbox
}

// SubagentInfo is a tracked sub-agent with its unread notification count.
type SubagentInfo struct {
	protocol.InboxSubagent
	Unread int
}

// WakeNoter is a Surface that words the message an idle parent gets for n
// new notifications (it names the surface's own tool to read them).
type WakeNoter interface {
	WakeNote(n int) string
}

// wakeNote is owner's message for n new notifications: its surface's
// wording, else a plain count.
func (e *Engine) wakeNote(owner *Thread, n int) string {
	owner.mu.Lock()
	surface := owner.surface
	owner.mu.Unlock()
	if w, ok := e.surfaces.byName[surface].(WakeNoter); ok {
		return w.WakeNote(n)
	}
	return fmt.Sprintf("%d new notifications from sub-agents.", n)
}

// inboxOf returns owner's inbox, creating it (set.mu held).
func (e *Engine) inboxOf(owner *Thread) *inbox {
	if e.inboxes.by == nil {
		e.inboxes.by = map[protocol.ThreadID]*inbox{}
	}
	in := e.inboxes.by[owner.id]
	if in == nil {
		in = newInbox(owner)
		e.inboxes.by[owner.id] = in
	}
	return in
}

// TrackSubagent puts a direct child of parentID in its inbox (the inbox
// surface's create_subagent, after SpawnChild): its final status will
// become a notification, and the parent is woken for news while idle.
func (e *Engine) TrackSubagent(parentID, childID protocol.ThreadID, task string) error {
	parent, child := e.thread(parentID), e.thread(childID)
	if parent == nil || child == nil || child.parentID != parentID {
		return fmt.Errorf("agent %s is not a sub-agent of %s", childID, parentID)
	}
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	e.trackLocked(e.inboxOf(parent), child, task)
	return nil
}

// trackLocked registers child in in (once) and starts the watchers
// (set.mu held).
func (e *Engine) trackLocked(in *inbox, child *Thread, task string) {
	if !in.track(child.id, task, e.now()) {
		return
	}
	e.watchOwnerLocked(in)
	e.watchSubLocked(in, child)
}

// PostToParent puts a message or question from a sub-agent in its
// parent's inbox; an idle parent is woken.
func (e *Engine) PostToParent(childID protocol.ThreadID, kind, text string) (protocol.InboxNotification, error) {
	if kind != protocol.NotifyMessage && kind != protocol.NotifyQuestion {
		return protocol.InboxNotification{}, fmt.Errorf("invalid notification type %q: expected message or question", kind)
	}
	if strings.TrimSpace(text) == "" {
		return protocol.InboxNotification{}, errors.New("content is empty")
	}
	child := e.thread(childID)
	if child == nil {
		return protocol.InboxNotification{}, fmt.Errorf("no agent %s in this session", childID)
	}
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	parent := e.thread(child.parentID)
	if parent == nil {
		return protocol.InboxNotification{}, errors.New("this agent has no parent inbox to write to")
	}
	in := e.inboxOf(parent)
	// A sub-agent can post before its parent's create call has tracked
	// it (it starts at once): it is tracked here then, with the same task.
	e.trackLocked(in, child, child.description)
	n := e.postLocked(in, childID, kind, text)
	e.wakeIfIdleLocked(in)
	return n, nil
}

// postLocked appends a notification (set.mu held).
func (e *Engine) postLocked(in *inbox, from protocol.ThreadID, kind, text string) protocol.InboxNotification {
	return in.post(from, kind, text, e.now())
}

// wakeIfIdleLocked gives an idle owner (its last turn completed) one turn
// for the notifications it has not been told about (set.mu held, so a
// wake and Settled never interleave).
func (e *Engine) wakeIfIdleLocked(in *inbox) {
	// Only a parent that finished its turn is woken: one the user
	// interrupted (or that failed) stays stopped until it is given input,
	// and hears of the news when that turn ends.
	if st, _ := in.owner.Status(); st.Kind != protocol.StatusCompleted || in.owner.isClosed() {
		return
	}
	seqs := in.unannounced()
	if len(seqs) == 0 {
		return
	}
	if !in.owner.deliver(false, protocol.UserMessage(e.wakeNote(in.owner, len(seqs)))) {
		return
	}
	in.announced(seqs)
}

// ReadInbox returns parentID's notifications, most recent first (only
// from's when it is set), and marks them read when markRead.
func (e *Engine) ReadInbox(parentID, from protocol.ThreadID, markRead bool) ([]protocol.InboxNotification, error) {
	parent := e.thread(parentID)
	if parent == nil {
		return nil, fmt.Errorf("no agent %s in this session", parentID)
	}
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	in := e.inboxes.by[parentID]
	if from != "" && (in == nil || in.subs[from] == nil) {
		return nil, fmt.Errorf("no sub-agent %s of this agent", from)
	}
	if in == nil {
		return nil, nil
	}
	return in.read(from, markRead), nil
}

// Subagents lists the sub-agents parentID tracks, in creation order.
func (e *Engine) Subagents(parentID protocol.ThreadID) []SubagentInfo {
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	in := e.inboxes.by[parentID]
	if in == nil {
		return nil
	}
	return in.subagents()
}

// UnreadCount is the number of unread notifications in id's inbox (the
// TUI's badge).
func (e *Engine) UnreadCount(id protocol.ThreadID) int {
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	if in := e.inboxes.by[id]; in != nil {
		return in.unread()
	}
	return 0
}

// ReplyToSubagent sends the parent's message to a tracked sub-agent: a
// working one reads it at its next step, an idle one starts a turn on it, a
// closed one (of a resumed session) is reopened, with rebind's run
// settings (its notify tool) when given.
func (e *Engine) ReplyToSubagent(parentID, childID protocol.ThreadID, message string, rebind *ChildSpec) error {
	if strings.TrimSpace(message) == "" {
		return errors.New("message is empty")
	}
	parent, child := e.thread(parentID), e.thread(childID)
	if parent == nil {
		return fmt.Errorf("no agent %s in this session", parentID)
	}
	e.inboxes.mu.Lock()
	in := e.inboxes.by[parentID]
	if in == nil || in.subs[childID] == nil || child == nil {
		e.inboxes.mu.Unlock()
		return fmt.Errorf("no sub-agent %s of this agent", childID)
	}
	if in.ended[childID] {
		e.inboxes.mu.Unlock()
		return fmt.Errorf("sub-agent %s was ended; create a new one", childID)
	}
	if child.isClosed() {
		// Reopening takes the inbox lock itself (its own inbox's watcher).
		e.inboxes.mu.Unlock()
		if err := e.ContinueChild(parentID, childID, message, rebind); err != nil {
			return err
		}
		e.inboxes.mu.Lock()
	} else if !child.deliver(false, fromAgent(parentID, []protocol.Item{protocol.UserMessage(message)})...) {
		e.inboxes.mu.Unlock()
		return fmt.Errorf("sub-agent %s is closing", childID)
	}
	defer e.inboxes.mu.Unlock()
	in.setState(childID, protocol.SubagentActive, "", e.now())
	e.watchOwnerLocked(in)
	e.watchSubLocked(in, child)
	return nil
}

// EndSubagent stops a tracked sub-agent and its whole subtree and returns
// its final state (an agent still working ends in error "ended by its
// parent").
func (e *Engine) EndSubagent(parentID, childID protocol.ThreadID) (protocol.InboxSubagent, error) {
	parent, child := e.thread(parentID), e.thread(childID)
	if parent == nil {
		return protocol.InboxSubagent{}, fmt.Errorf("no agent %s in this session", parentID)
	}
	e.inboxes.mu.Lock()
	in := e.inboxes.by[parentID]
	if in == nil || in.subs[childID] == nil || child == nil {
		e.inboxes.mu.Unlock()
		return protocol.InboxSubagent{}, fmt.Errorf("no sub-agent %s of this agent", childID)
	}
	st, _ := child.Status()
	final := in.end(childID, st.IsActive(), e.now())
	e.inboxes.mu.Unlock()
	// Outside the lock: the closing subtree may be posting to inboxes.
	if err := e.closeSubtree(child, parent); err != nil {
		return final, err
	}
	return final, nil
}

// Settled reports that no inbox work is pending: no tracked sub-agent is
// working or has a final status not yet turned into a notification, and
// every unread notification has been announced to its parent (inboxes of
// closed agents do not count: no one is left to read them). grove exec
// ends only when the root is idle and this holds.
func (e *Engine) Settled() bool {
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	for _, in := range e.inboxes.by {
		if in.owner.isClosed() {
			continue // no one is left to read it
		}
		if len(in.unannounced()) > 0 {
			return false
		}
		if st, _ := in.owner.Status(); st.IsActive() {
			return false
		}
		for _, id := range in.order {
			t := e.thread(id)
			if t == nil || in.ended[id] {
				continue
			}
			st, _ := t.Status()
			if st.IsActive() || (in.subs[id].State == protocol.SubagentActive && !t.isClosed()) {
				return false
			}
		}
	}
	return true
}

// watchOwnerLocked starts the watcher that wakes the owner when it goes
// idle with notifications it was not told about (set.mu held).
func (e *Engine) watchOwnerLocked(in *inbox) {
	if in.watching || in.owner.isClosed() {
		return
	}
	in.watching = true
	feed := in.owner.status.subscribe(in.owner.finalised)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer func() {
			e.inboxes.mu.Lock()
			in.watching = false
			e.inboxes.mu.Unlock()
		}()
		for {
			st, ok := feed.next(e.ctx.Done())
			if !ok {
				return
			}
			if st.IsActive() {
				continue
			}
			e.inboxes.mu.Lock()
			e.wakeIfIdleLocked(in)
			e.inboxes.mu.Unlock()
		}
	}()
}

// watchSubLocked starts the watcher that turns a sub-agent's final status
// into a completed or error notification (set.mu held).
func (e *Engine) watchSubLocked(in *inbox, child *Thread) {
	if in.watched[child.id] || child.isClosed() {
		return
	}
	in.watched[child.id] = true
	feed := child.status.subscribe(child.finalised)
	e.finishSubLocked(in, child) // it may have finished already
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer func() {
			e.inboxes.mu.Lock()
			in.watched[child.id] = false
			e.inboxes.mu.Unlock()
		}()
		for {
			st, ok := feed.next(e.ctx.Done())
			if !ok {
				return
			}
			if st.IsActive() {
				continue
			}
			e.inboxes.mu.Lock()
			e.finishSubLocked(in, child)
			e.inboxes.mu.Unlock()
		}
	}()
}

// finishSubLocked posts the terminal notification of a sub-agent that is
// final now and still active in the inbox (set.mu held). The status is
// read again here, so a stale feed entry (the agent was given more work
// since) posts nothing.
func (e *Engine) finishSubLocked(in *inbox, child *Thread) {
	if s := in.subs[child.id]; s == nil || s.State != protocol.SubagentActive || in.ended[child.id] {
		return
	}
	st, _ := child.Status()
	if st.IsActive() {
		return
	}
	in.finish(child.id, st, e.now())
	e.wakeIfIdleLocked(in)
}

// restoreInbox rebuilds t's inbox from its rollout's inbox events (resume)
// and, when unread notifications were never announced, arranges for the
// owner to be woken once it is idle.
func (e *Engine) restoreInbox(t *Thread, events []protocol.Event) {
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	var in *inbox
	for _, ev := range events {
		if ev.Type != protocol.EventInbox || ev.Inbox == nil {
			continue
		}
		if in == nil {
			in = e.inboxOf(t)
		}
		in.replay(*ev.Inbox)
	}
	if in != nil {
		in.endActive()
	}
}

// watchRestored starts the wake watcher of a resumed thread's inbox: it
// is woken for unannounced notifications when its next turn ends.
func (e *Engine) watchRestored(t *Thread) {
	e.inboxes.mu.Lock()
	defer e.inboxes.mu.Unlock()
	if in := e.inboxes.by[t.id]; in != nil {
		e.watchOwnerLocked(in)
	}
}
