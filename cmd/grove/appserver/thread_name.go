package appserver

import (
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// threadNameSet is Codex's thread/name/set {threadId, name} → {}: the
// thread's title, trimmed (a blank one is refused), kept in the session
// index as Codex keeps it; thread/name/updated follows the answer. A
// stored thread that is not loaded is renamed in the index directly.
func (s *Server) threadNameSet(p threadNameParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	name := strings.TrimSpace(p.Name)
	if name == "" {
		return nil, rpcError(protocol.RPCInvalidRequest, "thread name must not be empty")
	}
	if t := s.loaded(p.ThreadID); t != nil {
		if _, err := t.sess.eng.SetThreadName(t.info.ID, name); err != nil {
			return nil, rpcError(protocol.RPCInvalidRequest, "thread/name/set: %v", err)
		}
		s.refreshInfo(t)
	} else if rerr := s.renameStored(p.ThreadID, name); rerr != nil {
		return nil, rerr
	}
	return afterResponse{result: struct{}{}, after: func() {
		_ = s.out.notify("thread/name/updated", map[string]any{"threadId": p.ThreadID, "threadName": name})
	}}, nil
}

// threadNameParams is Codex's ThreadSetNameParams.
type threadNameParams struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
}

// renameStored writes a stored thread's new name to its index entry.
func (s *Server) renameStored(id, name string) *protocol.RPCError {
	entry, err := rollout.FindSession(s.opts.Home, id)
	if err != nil || string(entry.ID) != id {
		return rpcError(protocol.RPCInvalidRequest, "thread not found: %s", id)
	}
	entry.ThreadName = name
	entry.UpdatedAt = time.Now()
	if err := rollout.AppendIndex(s.opts.Home, entry); err != nil {
		return rpcError(protocol.RPCInternalError, "thread/name/set: %v", err)
	}
	return nil
}
