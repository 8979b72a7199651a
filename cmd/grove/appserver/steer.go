package appserver

import (
	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

type turnSteerParams struct {
	ThreadID       string                  `json:"threadId"`
	Input          []protocol.AppUserInput `json:"input"`
	ExpectedTurnID string                  `json:"expectedTurnId"`
}

// turnSteer is Codex's turn/steer {threadId, input, expectedTurnId} →
// {turnId}: more input for the running turn, which the engine hands the
// model with its next request (the same path as a message typed while a
// TUI turn runs), sent as the session core's steer (app.Turn.Steer). With no turn running, or another one than expected, it
// is refused: the client's view of the thread is stale.
func (s *Server) turnSteer(p turnSteerParams) (any, *protocol.RPCError) {
	t, rerr := s.loadedThread(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	items, rerr := inputItems(p.Input)
	if rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	cur := t.turnID
	s.mu.Unlock()
	switch {
	case cur == "":
		return nil, rpcError(protocol.RPCInvalidRequest, "no turn is running on thread %s; use turn/start", p.ThreadID)
	case p.ExpectedTurnID != "" && p.ExpectedTurnID != cur:
		return nil, rpcError(protocol.RPCInvalidRequest, "turn %s is not the running turn of thread %s (it is %s)", p.ExpectedTurnID, p.ThreadID, cur)
	}
	if err := t.sess.core.Turn(app.Turn{Thread: t.info.ID, Items: items, Steer: true}); err != nil {
		return nil, rpcError(protocol.RPCInvalidRequest, "turn/steer: %v", err)
	}
	return map[string]any{"turnId": cur}, nil
}

// threadFork is Codex's thread/fork {threadId, cwd?, model?,
// approvalPolicy?, sandbox?}: a new thread continuing a copy of a stored
// thread's conversation (the engine's ForkSession, as `grove resume
// --fork`); the source is not touched. Answered like thread/start, with
// the copied turns.
func (s *Server) threadFork(p protocol.AppThreadResumeParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	return s.openStoredThread(p, true)
}
