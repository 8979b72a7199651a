package appserver

import (
	"github.com/grovecli/grove/protocol"
)

// threadCompactParams are Codex's ThreadCompactStartParams.
type threadCompactParams struct {
	ThreadID string `json:"threadId"`
}

// threadCompact answers thread/compact/start (Codex's name; grove also
// accepts thread/compact): the thread's history is summarised and replaced,
// now if it is idle, after its running turn otherwise. The response is
// empty, as Codex's; thread/compacted announces the result.
func (s *Server) threadCompact(p threadCompactParams) (any, *protocol.RPCError) {
	t, rerr := s.loadedThread(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	if err := t.sess.eng.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: t.info.ID}); err != nil {
		return nil, rpcError(protocol.RPCInvalidRequest, "thread/compact/start: %v", err)
	}
	return map[string]any{}, nil
}

// compactedNote is Codex's thread/compacted notification (its
// ContextCompactedNotification) for a compaction of thread tid.
func compactedNote(tid, turnID string) map[string]any {
	return map[string]any{"threadId": tid, "turnId": turnID}
}
