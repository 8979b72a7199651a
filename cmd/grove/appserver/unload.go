package appserver

import (
	"context"
	"fmt"
	"time"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A long-lived IDE connection opens many threads. Codex unloads a thread
// its client unsubscribes from, and grove also bounds how many sessions
// one connection keeps loaded (Options.MaxLoadedSessions): a loaded
// session holds its rollout files, MCP servers and memory. An unloaded
// thread is still listed and read from the store, and thread/resume loads
// it again.

// makeRoom unloads the least recently used idle sessions until one more
// fits; with every session busy it refuses.
func (s *Server) makeRoom() error {
	for {
		s.mu.Lock()
		if len(s.sessions) < s.maxLoaded() {
			s.mu.Unlock()
			return nil
		}
		victim := s.idlestLocked()
		s.mu.Unlock()
		if victim == nil {
			return fmt.Errorf("%d threads are loaded and busy on this connection (the limit): interrupt or thread/unsubscribe one first", s.maxLoaded())
		}
		logging.L().Info("app-server: unloading the least recently used thread", "thread", string(victim.root))
		s.unload(victim)
	}
}

// maxLoaded is Options.MaxLoadedSessions (default 16).
func (s *Server) maxLoaded() int {
	if s.opts.MaxLoadedSessions > 0 {
		return s.opts.MaxLoadedSessions
	}
	return defaultMaxLoadedSessions
}

const defaultMaxLoadedSessions = 16

// idlestLocked is the least recently used session with no turn running
// and no approval waiting (nil when every session is busy).
func (s *Server) idlestLocked() *session {
	var best *session
	for _, sess := range s.sessions {
		if s.sessionBusyLocked(sess) {
			continue
		}
		if best == nil || sess.lastUsed.Before(best.lastUsed) {
			best = sess
		}
	}
	return best
}

func (s *Server) sessionBusyLocked(sess *session) bool {
	for _, t := range s.threads {
		if t.sess == sess && (t.busy || t.approvals > 0 || t.status.IsActive()) {
			return true
		}
	}
	return false
}

// unload shuts a session down (its turns are interrupted, its rollouts
// flushed; the pump sends thread/closed for each thread) and forgets it.
func (s *Server) unload(sess *session) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	// Close releases the subscription only once the pump has forwarded
	// the last events (status notLoaded, thread/closed), or those events
	// would be lost.
	if err := sess.core.Close(ctx); err != nil {
		logging.L().Warn("app-server: unload", "thread", string(sess.root), "err", err)
	}
	if sess.pumpDone != nil {
		select {
		case <-sess.pumpDone:
		case <-ctx.Done():
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.threads {
		if t.sess == sess {
			delete(s.threads, id)
		}
	}
	for i, x := range s.sessions {
		if x == sess {
			s.sessions = append(s.sessions[:i], s.sessions[i+1:]...)
			break
		}
	}
}

type threadIDParams struct {
	ThreadID string `json:"threadId"`
}

// threadUnsubscribe is Codex's thread/unsubscribe: this connection is the
// thread's only subscriber, so the thread's session is unloaded (a running
// turn is interrupted and recorded). Answers {status}.
func (s *Server) threadUnsubscribe(p threadIDParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	t := s.loaded(p.ThreadID)
	if t == nil {
		return map[string]any{"status": "notLoaded"}, nil
	}
	if t.info.ID != t.sess.root {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: threadId: %s is a sub-agent of %s; unsubscribe from its root thread", t.info.ID, t.sess.root)
	}
	s.unload(t.sess)
	return map[string]any{"status": "unsubscribed"}, nil
}

// threadArchive is thread/archive (archived threads, and the sub-agents
// of an archived root, leave thread/list unless it asks for archived ones)
// and thread/unarchive. An archived thread that is loaded is unloaded
// first.
func (s *Server) threadArchive(p threadIDParams, archive bool) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	entry, rerr := s.findStored(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	var err error
	if entry.ParentID != "" {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: threadId: %s is a sub-agent of %s; archive its root thread", entry.ID, entry.ParentID)
	}
	if t := s.loaded(string(entry.ID)); t != nil && archive {
		s.mu.Lock()
		busy := s.sessionBusyLocked(t.sess)
		s.mu.Unlock()
		if busy {
			return nil, rpcError(protocol.RPCInvalidRequest, "thread %s is running a turn; interrupt it before archiving", entry.ID)
		}
		s.unload(t.sess)
		if entry, err = rollout.FindSession(s.opts.Home, p.ThreadID); err != nil {
			return nil, rpcError(protocol.RPCInternalError, "thread/archive: %v", err)
		}
	}
	entry.Archived = archive
	entry.UpdatedAt = time.Now()
	if err := rollout.AppendIndex(s.opts.Home, entry); err != nil {
		return nil, rpcError(protocol.RPCInternalError, "thread/archive: %v", err)
	}
	if archive {
		// The root's sub-agents are archived with it (thread/list reads a
		// sub-agent's archived mark from its root): each is announced,
		// deepest first, then the root, as Codex announces the spawned
		// descendants it archives.
		tree, _ := rollout.Descendants(s.opts.Home, entry.ID)
		return afterResponse{result: struct{}{}, after: func() {
			for _, d := range tree {
				_ = s.out.notify("thread/archived", map[string]any{"threadId": string(d.ID)})
			}
			_ = s.out.notify("thread/archived", map[string]any{"threadId": string(entry.ID)})
		}}, nil
	}
	th := s.indexThread(entry)
	return afterResponse{result: map[string]any{"thread": th}, after: func() {
		_ = s.out.notify("thread/unarchived", map[string]any{"threadId": string(entry.ID)})
	}}, nil
}
