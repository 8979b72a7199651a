package engine

import (
	"slices"
	"time"

	"github.com/grovecli/grove/protocol"
)

// inbox is one parent's view of the sub-agents it tracks: their states and
// the notifications they posted. Its methods change it and persist each
// change as an inbox event in the owner's rollout; the caller holds the
// inbox set's lock (inboxSet.mu).
type inbox struct {
	owner    *Thread
	subs     map[protocol.ThreadID]*protocol.InboxSubagent
	order    []protocol.ThreadID
	notes    []*protocol.InboxNotification
	watching bool // a watcher wakes the owner when it goes idle
	// watched are sub-agents whose status a watcher follows.
	watched map[protocol.ThreadID]bool
	// ended are sub-agents the parent ended: their shutdown posts nothing.
	ended map[protocol.ThreadID]bool
}

func newInbox(owner *Thread) *inbox {
	return &inbox{owner: owner, subs: map[protocol.ThreadID]*protocol.InboxSubagent{}, watched: map[protocol.ThreadID]bool{}, ended: map[protocol.ThreadID]bool{}}
}

// persist publishes an inbox change and records it in the owner's rollout.
func (in *inbox) persist(ch protocol.InboxChange) {
	in.owner.publish(protocol.NewEvent(in.owner.id, "", protocol.InboxMsg{Change: ch}))
	in.owner.flush()
}

func (in *inbox) saveSub(s *protocol.InboxSubagent) {
	cp := *s
	in.persist(protocol.InboxChange{Subagent: &cp})
}

// track adds a sub-agent, working on task; false when it is tracked already.
func (in *inbox) track(id protocol.ThreadID, task string, now time.Time) bool {
	if _, dup := in.subs[id]; dup {
		return false
	}
	s := &protocol.InboxSubagent{ID: id, Task: task, State: protocol.SubagentActive, CreatedAt: now, LastActivity: now}
	in.subs[id] = s
	in.order = append(in.order, id)
	in.saveSub(s)
	return true
}

// post appends a notification from a sub-agent.
func (in *inbox) post(from protocol.ThreadID, kind, text string, now time.Time) protocol.InboxNotification {
	n := &protocol.InboxNotification{Seq: len(in.notes) + 1, From: from, Timestamp: now, Kind: kind, Text: text}
	in.notes = append(in.notes, n)
	if s := in.subs[from]; s != nil {
		s.LastActivity = n.Timestamp
	}
	cp := *n
	in.persist(protocol.InboxChange{Notification: &cp})
	return cp
}

// unannounced is the seqs of the unread notifications the owner was not
// told about.
func (in *inbox) unannounced() []int {
	var seqs []int
	for _, n := range in.notes {
		if !n.Read && !n.Announced {
			seqs = append(seqs, n.Seq)
		}
	}
	return seqs
}

// announced marks notifications the owner was told about.
func (in *inbox) announced(seqs []int) {
	for _, s := range seqs {
		in.notes[s-1].Announced = true
	}
	in.persist(protocol.InboxChange{Announced: seqs})
}

// read returns the notifications, most recent first (only from's when it
// is set), and marks them read when markRead.
func (in *inbox) read(from protocol.ThreadID, markRead bool) []protocol.InboxNotification {
	var out []protocol.InboxNotification
	var read []int
	for i := len(in.notes) - 1; i >= 0; i-- {
		n := in.notes[i]
		if from != "" && n.From != from {
			continue
		}
		out = append(out, *n)
		if markRead && !n.Read {
			n.Read = true
			read = append(read, n.Seq)
		}
	}
	if len(read) > 0 {
		slices.Sort(read)
		in.persist(protocol.InboxChange{Read: read})
	}
	return out
}

// subagents lists the tracked sub-agents in creation order with their
// unread counts.
func (in *inbox) subagents() []SubagentInfo {
	unread := map[protocol.ThreadID]int{}
	for _, n := range in.notes {
		if !n.Read {
			unread[n.From]++
		}
	}
	out := make([]SubagentInfo, 0, len(in.order))
	for _, id := range in.order {
		out = append(out, SubagentInfo{InboxSubagent: *in.subs[id], Unread: unread[id]})
	}
	return out
}

// unread is the number of unread notifications.
func (in *inbox) unread() int {
	n := 0
	for _, x := range in.notes {
		if !x.Read {
			n++
		}
	}
	return n
}

// setState records a sub-agent's new state.
func (in *inbox) setState(id protocol.ThreadID, state, errMsg string, now time.Time) {
	s := in.subs[id]
	s.State, s.ErrorMessage, s.LastActivity = state, errMsg, now
	in.saveSub(s)
}

// end marks a sub-agent ended by its parent (an error when it was still
// working) and returns its final state.
func (in *inbox) end(id protocol.ThreadID, working bool, now time.Time) protocol.InboxSubagent {
	s := in.subs[id]
	in.ended[id] = true
	if s.State == protocol.SubagentActive || working {
		s.State, s.ErrorMessage = protocol.SubagentError, "ended by its parent before it finished"
	}
	s.LastActivity = now
	in.saveSub(s)
	return *s
}

// finish turns a sub-agent's final status into its completed or error
// notification and state.
func (in *inbox) finish(id protocol.ThreadID, st protocol.AgentStatus, now time.Time) {
	s := in.subs[id]
	switch st.Kind {
	case protocol.StatusCompleted:
		s.State, s.ErrorMessage = protocol.SubagentCompleted, ""
		summary := st.Message
		if summary == "" {
			summary = "(the sub-agent finished without a final message)"
		}
		in.post(id, protocol.NotifyCompleted, summary, now)
	default:
		msg := st.Message
		switch {
		case st.Kind == protocol.StatusInterrupted:
			msg = "interrupted" + suffix(": it had said: ", st.Message)
		case st.Kind == protocol.StatusShutdown:
			msg = "shut down before it finished"
		case msg == "":
			msg = string(st.Kind)
		}
		s.State, s.ErrorMessage = protocol.SubagentError, msg
		in.post(id, protocol.NotifyError, msg, now)
	}
	in.saveSub(s)
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// replay applies one recorded inbox change (resume).
func (in *inbox) replay(ch protocol.InboxChange) {
	switch {
	case ch.Subagent != nil:
		s := *ch.Subagent
		if in.subs[s.ID] == nil {
			in.order = append(in.order, s.ID)
		}
		in.subs[s.ID] = &s
	case ch.Notification != nil:
		n := *ch.Notification
		// Seq is the position; a gap (a lost line) is closed up.
		n.Seq = len(in.notes) + 1
		in.notes = append(in.notes, &n)
	}
	for _, s := range ch.Read {
		if s >= 1 && s <= len(in.notes) {
			in.notes[s-1].Read = true
		}
	}
	for _, s := range ch.Announced {
		if s >= 1 && s <= len(in.notes) {
			in.notes[s-1].Announced = true
		}
	}
}

// endActive ends the sub-agents a resumed session's inbox still shows
// working: they are not any more.
func (in *inbox) endActive() {
	for _, id := range in.order {
		if s := in.subs[id]; s.State == protocol.SubagentActive {
			s.State, s.ErrorMessage = protocol.SubagentError, "the session ended before it finished"
			in.saveSub(s)
		}
	}
}
