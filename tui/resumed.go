package tui

import (
	"bytes"
	"encoding/json"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A resumed session's threads come back without their token counts, how
// they ended (the engine reports children closed) or when; the tail of
// each rollout has all three, read off the UI loop.

// resumedStatsMsg is what a rollout's tail says about its thread.
type resumedStatsMsg struct {
	id     protocol.ThreadID
	usage  *protocol.TokenUsage
	last   protocol.TokenUsage   // the last call's (the context it carried)
	status *protocol.AgentStatus // the last status other than shutdown
	at     time.Time             // when the last turn ended
	turnAt time.Time             // when the last turn started
}

var (
	usageMarker  = []byte(`"` + protocol.EventTokenUsage + `"`)
	statusMarker = []byte(`"` + protocol.EventStatusChanged + `"`)
)

type timedStatus struct {
	status protocol.AgentStatus
	at     time.Time
}

// scanRollout reverse-scans a rollout's tail until it has the newest
// token total, the last real status and the start of the turn before it.
func scanRollout(id protocol.ThreadID, path string) resumedStatsMsg {
	msg := resumedStatsMsg{id: id}
	var later *timedStatus // the status change after this line's (scanning backwards)
	_ = rollout.ReverseScan(path, func(l rollout.Line) bool {
		if l.Type != rollout.TypeEventMsg {
			return true
		}
		isUsage, isStatus := bytes.Contains(l.Payload, usageMarker), bytes.Contains(l.Payload, statusMarker)
		if !isUsage && !isStatus {
			return true
		}
		var ev protocol.Event
		if json.Unmarshal(l.Payload, &ev) != nil {
			return true
		}
		at := ev.Timestamp
		if at.IsZero() {
			at = l.Timestamp
		}
		switch {
		case ev.Type == protocol.EventTokenUsage && ev.TotalUsage != nil:
			if msg.usage == nil {
				u := *ev.TotalUsage
				msg.usage = &u
				if ev.Usage != nil {
					msg.last = *ev.Usage
				}
			}
		case ev.Type == protocol.EventStatusChanged && ev.Status != nil:
			st := *ev.Status
			if msg.status == nil && st.Kind != protocol.StatusShutdown {
				msg.status = &st // how it ended
			}
			// The last turn: a running status directly followed by its end.
			if msg.turnAt.IsZero() && st.Kind == protocol.StatusRunning && later != nil && later.status.Kind != protocol.StatusRunning && later.status.Kind != protocol.StatusShutdown {
				msg.turnAt, msg.at = at, later.at
			}
			later = &timedStatus{st, at}
		}
		done := msg.usage != nil && msg.status != nil && !msg.turnAt.IsZero()
		return !done
	})
	return msg
}

// scanResumed asks for the tail of every thread that came back with no
// status time (a resumed one).
func (m *Model) scanResumed() tea.Cmd {
	var cmds []tea.Cmd
	for _, id := range m.sess.order {
		t := m.sess.threads[id]
		if t.info.RolloutPath == "" || !t.statusAt.IsZero() {
			continue
		}
		id, path := id, t.info.RolloutPath
		cmds = append(cmds, func() tea.Msg { return scanRollout(id, path) })
	}
	return tea.Batch(cmds...)
}

// applyResumed fills in what the live session has not already replaced.
func (m *Model) applyResumed(msg resumedStatsMsg) {
	t := m.sess.threads[msg.id]
	if t == nil {
		return
	}
	if msg.usage != nil && t.usage.TotalTokens == 0 {
		t.usage = *msg.usage
	}
	if t.lastCall == (protocol.TokenUsage{}) {
		t.lastCall = msg.last
	}
	if msg.status == nil || !t.statusAt.IsZero() {
		return // it has run since: the live status is newer
	}
	t.learn(*msg.status)
	t.statusAt, t.turnAt = msg.at, msg.turnAt
	for _, c := range m.sess.cards[msg.id] {
		c.touch()
	}
}
