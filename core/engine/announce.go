package engine

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// Announce publishes a background event about child on thread id and
// records it in id's rollout (a surface's diagnostics, such as seed 003's
// "spawned child session …").
func (e *Engine) Announce(id, child protocol.ThreadID, message string) error {
	t := e.thread(id)
	if t == nil {
		return fmt.Errorf("no agent %s in this session", id)
	}
	st := protocol.AgentStatus{}
	if c := e.thread(child); c != nil {
		st, _ = c.Status()
	}
	bg := protocol.BackgroundEvent{ChildID: child, Status: st, IsFinal: st.IsFinal(), Message: message}
	t.publish(protocol.NewEvent(id, "", protocol.BackgroundMsg{Event: bg}))
	return nil
}
