package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/protocol"
)

// SessionFactory opens a session of the core for one thread/start,
// thread/resume or thread/fork: its engine holds one root thread and its
// sub-agents, with the MCP servers, hooks and hosts the session owns.
type SessionFactory func(ctx context.Context, cfg ThreadConfig, start app.Start) (*app.Session, error)

// session is one core session: a root thread and its sub-agents.
type session struct {
	core *app.Session
	eng  engine.FrontEnd
	root protocol.ThreadID
	cfg  ThreadConfig
	// threadSource is thread/start's threadSource, echoed on the root.
	threadSource *string
	// forked is thread/fork's answered thread: its thread/started carries
	// the same thread, copied turns included (Codex: thread_fork.rs).
	forked *protocol.AppThread
	// lastUsed orders sessions for unloading (guarded by Server.mu).
	lastUsed time.Time
	// pumpDone is closed when the session's event pump has returned.
	pumpDone chan struct{}
	events   <-chan protocol.Event
}

// thread is the server's view of one loaded thread, kept up to date by the
// session's event pump (guarded by Server.mu).
type thread struct {
	sess *session
	info protocol.ThreadInfo

	// busy: a turn/start was accepted or a turn runs (a second turn/start is
	// refused until it ends).
	busy bool
	// startWaiting maps the client id of each turn/start's input (the
	// engine echoes it in turn_started) to the request answered then.
	startWaiting map[string]json.RawMessage
	// clientInput keeps each turn/start's input by client id until its
	// userMessage item goes out (text_elements are the client's only).
	clientInput map[string][]protocol.AppUserInput
	turnID      string
	turnStart   time.Time
	turnItems   []any
	turnError   string
	// reviewWaiting maps the client id of a review/start's input to the
	// review's label (enteredReviewMode's text); reviewTurn is the running
	// review turn.
	reviewWaiting map[string]string
	reviewTurn    string
	// instructionSources are the instruction files read when the thread
	// was loaded (nil until then).
	instructionSources []string
	// held is a finished turn whose outcome the next status event decides.
	held *protocol.AppTurn
	// interruptAsked is the turn the client interrupted.
	interruptAsked string

	msgItem string // the open agentMessage item ("" when none)
	msgText strings.Builder
	// reasonItem is the open reasoning item ("" when none).
	reasonItem string
	reasonText strings.Builder
	tools      map[string]any // open tool items by call id
	// liveOutput marks the commands whose output went out as live deltas.
	liveOutput map[string]bool
	// declined marks calls whose approval the user refused.
	declined map[string]bool

	approvals int // approval requests of this thread awaiting the client
	status    protocol.AgentStatus
}

func newThread(sess *session, ti protocol.ThreadInfo) *thread {
	return &thread{sess: sess, info: ti, status: ti.Status, tools: map[string]any{}, declined: map[string]bool{}, liveOutput: map[string]bool{}}
}

// openSession builds an engine and starts (or resumes) its root. The event
// pump is started by startPump once the client has its response.
func (s *Server) openSession(cfg ThreadConfig, resumeID string) (*session, *thread, error) {
	return s.openSessionAs(cfg, resumeID, false)
}

// openSessionAs is openSession; fork continues a copy of resumeID as a
// new session (thread/fork) instead of resuming it.
func (s *Server) openSessionAs(cfg ThreadConfig, resumeID string, fork bool) (*session, *thread, error) {
	if err := s.makeRoom(); err != nil {
		return nil, nil, err
	}
	core, err := s.openCore(cfg, app.Start{Resume: resumeID, Fork: fork, Subscribe: true})
	if err != nil {
		return nil, nil, err
	}
	eng, root := core.Engine(), core.Root()
	sess := &session{core: core, eng: eng, root: root, cfg: cfg, events: core.Events(), lastUsed: time.Now(), pumpDone: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions = append(s.sessions, sess)
	var rootThread *thread
	for _, ti := range eng.Threads() {
		t := newThread(sess, ti)
		s.threads[ti.ID] = t
		if ti.ID == root {
			rootThread = t
		}
	}
	if rootThread == nil {
		return nil, nil, fmt.Errorf("session %s: root thread missing", root)
	}
	return sess, rootThread, nil
}

// openCore opens the core session of a thread: through OpenSession, or
// over an engine of NewEngine (tests' scripted engines).
func (s *Server) openCore(cfg ThreadConfig, start app.Start) (*app.Session, error) {
	if s.opts.OpenSession != nil {
		return s.opts.OpenSession(s.ctx, cfg, start)
	}
	eng, err := s.opts.NewEngine(s.ctx, cfg)
	if err != nil {
		return nil, err
	}
	return app.Adopt(eng, start)
}

// startPump forwards a session's events to the client until the engine
// closes its bus (at shutdown).
func (s *Server) startPump(sess *session) {
	s.pumps.Add(1)
	go func() {
		defer s.pumps.Done()
		defer close(sess.pumpDone)
		for ev := range sess.events {
			s.onEvent(sess, ev)
		}
		s.flushHeld(sess)
	}()
}

// loaded returns the thread of a loaded session.
func (s *Server) loaded(id string) *thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threads[protocol.ThreadID(id)]
}

// engineConfig checks thread/start-like overrides.
func engineConfig(cwd, model, approval, sandbox *string) (ThreadConfig, *protocol.RPCError) {
	var cfg ThreadConfig
	if cwd != nil {
		cfg.Cwd = *cwd
	}
	if model != nil {
		cfg.Model = strings.TrimSpace(*model)
	}
	if approval != nil {
		p := protocol.ApprovalPolicy(*approval)
		if !p.Valid() {
			return cfg, rpcError(protocol.RPCInvalidParams, "invalid params: approvalPolicy: unknown policy %q (untrusted, on-request, on-failure, never)", *approval)
		}
		cfg.ApprovalPolicy = p
	}
	if sandbox != nil {
		m := protocol.SandboxMode(*sandbox)
		if !m.Valid() {
			return cfg, rpcError(protocol.RPCInvalidParams, "invalid params: sandbox: unknown mode %q (read-only, workspace-write, danger-full-access)", *sandbox)
		}
		cfg.Sandbox = m
	}
	return cfg, nil
}
