package tui

import (
	"fmt"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A thread the TUI did not watch live (a resumed session, a session opened
// from the picker) is rebuilt from its rollout's recorded events, folded
// through the same apply the live view uses: exit codes, errors, durations,
// approval answers, plans, sub-agent cards, statuses and token totals come
// back exactly as they were shown. Only a rollout with no events (written
// before they were recorded) falls back to its response items.

// liveOnly are the event kinds never written to a rollout; every other
// kind a replayed thread receives live may already have been replayed.
var liveOnly = map[protocol.EventType]bool{
	protocol.EventMessageDelta:    true,
	protocol.EventReasoningDelta:  true,
	protocol.EventExecOutputDelta: true,
}

// restore rebuilds thread t: its rollout's events when it has them, else
// the history items. It returns a warning to show ("" when none).
func (s *session) restore(t *threadView, items []protocol.Item) string {
	path := t.info.RolloutPath
	if path == "" {
		s.loadHistory(t, items)
		return ""
	}
	rs, err := rollout.Read(path)
	if err != nil {
		s.loadHistory(t, items)
		return fmt.Sprintf("transcript of %s rebuilt from its messages only: %v", t.name(), err)
	}
	if !s.replay(t, rs.Events) {
		s.loadHistory(t, items)
	}
	return ""
}

// replay folds a thread's recorded events into it, as they were applied
// live. It reports false when the events hold no conversation (an old
// rollout), leaving t untouched.
func (s *session) replay(t *threadView, evs []protocol.Event) bool {
	if !hasConversation(evs) {
		return false
	}
	info := t.info
	for _, ev := range evs {
		if ev.ThreadID != "" && ev.ThreadID != t.info.ID {
			continue // a rollout holds its own thread's events only
		}
		ev.ThreadID = t.info.ID
		if _, err := ev.Msg(); err != nil {
			continue // malformed or unknown to this grove: the live view skips it too
		}
		s.apply(ev)
		if ev.Timestamp.After(t.replayedTo) {
			t.replayedTo = ev.Timestamp
		}
	}
	// The engine's picture of the thread now (its note, model, status) is
	// newer than what the rollout started with.
	t.info = info
	s.touchCards(info.ID)
	if info.Status.Kind != "" {
		t.setStatus(info.Status, time.Time{}) // the same status keeps its time
	}
	t.streaming = nil // a message the recording cut off is not still streaming
	return true
}

// hasConversation reports events that show a conversation (rather than
// just a start and a status).
func hasConversation(evs []protocol.Event) bool {
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventUserMessage, protocol.EventMessage, protocol.EventToolCallEnd, protocol.EventError:
			return true
		}
	}
	return false
}

// replayed reports a live event that the rollout replay already applied:
// a recorded kind, no newer than the last replayed event of its thread.
func (s *session) replayed(ev protocol.Event) bool {
	t := s.threads[ev.ThreadID]
	if t == nil || t.replayedTo.IsZero() || liveOnly[ev.Type] {
		return false
	}
	return !ev.Timestamp.After(t.replayedTo)
}

func sameStatus(a, b protocol.AgentStatus) bool {
	return a.Kind == b.Kind && a.Message == b.Message && a.HasMessage == b.HasMessage
}
