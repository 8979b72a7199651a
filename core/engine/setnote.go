package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// setNote normalises and applies a thread note: event, rollout line and
// session index. An empty note clears it.
func (e *Engine) setNote(t *Thread, note string) (string, error) {
	n := NormalizeNote(note)
	t.mu.Lock()
	if t.life.closed {
		t.mu.Unlock()
		// ClosedError names no tool: collab says resume_agent, a client
		// (thread/note/set) resumes its own way.
		return "", ClosedError{ID: t.id}
	}
	t.note = n
	rec := t.life.rec
	t.mu.Unlock()
	nn := n
	ev := e.bus.Publish(protocol.NewEvent(t.id, "", protocol.NoteUpdatedMsg{Note: nn}))
	if rec != nil {
		if err := rec.AppendEvent(ev); err != nil {
			return n, fmt.Errorf("record note: %w", err)
		}
		if err := rec.Flush(); err != nil {
			return n, fmt.Errorf("record note: %w", err)
		}
	}
	e.updateIndex(t)
	return n, nil
}
