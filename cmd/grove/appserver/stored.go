package appserver

import (
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// findStored is the index entry of a stored thread; a thread with no
// rollout (unknown, or started here and given no message yet) is Codex's
// "no rollout found for thread id" (codex-rs thread_archive.rs,
// thread_fork.rs).
func (s *Server) findStored(id string) (rollout.IndexEntry, *protocol.RPCError) {
	entry, err := rollout.FindSession(s.opts.Home, id)
	switch {
	case rollout.IsNoSession(err):
		return entry, rpcError(protocol.RPCInvalidRequest, "no rollout found for thread id %s", id)
	case err != nil:
		return entry, rpcError(protocol.RPCInvalidParams, "invalid params: threadId: %v", err)
	}
	return entry, nil
}

// unmaterialized reports whether loaded thread t has no rollout on disk
// yet (a new thread before its first message).
func (s *Server) unmaterialized(t *thread) bool {
	if t.sess.cfg.Ephemeral || t.info.RolloutPath == "" {
		return false
	}
	_, err := rollout.FindSession(s.opts.Home, string(t.info.ID))
	return rollout.IsNoSession(err)
}
