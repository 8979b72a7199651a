package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/rpc"
	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/protocol"
)

// ThreadConfig is what a client may choose for a new or resumed session
// (thread/start's cwd, model, approvalPolicy and sandbox); empty fields take
// the configured defaults.
type ThreadConfig struct {
	Cwd            string
	Model          string
	ApprovalPolicy protocol.ApprovalPolicy
	Sandbox        protocol.SandboxMode
	// Ephemeral sessions keep no files and are never listed.
	Ephemeral bool
	// Originator is the client's name, sent as the originator header of
	// the session's model requests.
	Originator string
	// RuntimeWorkspaceRoots are thread/start's extra writable roots
	// (absolute, cleaned): the session's sandbox adds them to the
	// configuration's.
	RuntimeWorkspaceRoots []string
}

// EngineFactory builds an engine (not yet started) for one session. Each
// engine holds one root thread and its sub-agents; every engine shares the
// same $GROVE_HOME, so sessions resume across front ends.
type EngineFactory func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error)

// Options configure a server.
type Options struct {
	// Home is $GROVE_HOME (the rollout store and session index).
	Home string
	// OpenSession opens each thread/start, resume and fork as a session
	// of the core (core/app); nil: NewEngine's engines, adopted.
	OpenSession SessionFactory
	NewEngine   EngineFactory
	// Version is reported as the cliVersion of threads and in the user agent.
	Version string
	// QueueSize bounds requests waiting to be handled; beyond it a request
	// is answered -32001 (default 64).
	QueueSize int
	// ShutdownGrace bounds the engines' shutdown at the end of input.
	ShutdownGrace time.Duration
	// Skills finds the skills for a working directory (skills/list);
	// Cwd is the directory used when a request names none.
	Skills func(cwd string) skills.Catalog
	Cwd    string
	// Host answers the startup methods (account, config, models, MCP
	// servers).
	Host *Host
	// WriteStall is how long the server waits for a client that stopped
	// reading (its output queue full) before giving up on it (default 60s).
	WriteStall time.Duration
	// MaxLoadedSessions bounds the sessions (root threads and their
	// sub-agents) loaded on this connection (default 16): opening one more
	// unloads the least recently used idle one, which thread/resume loads
	// again. Each loaded session holds files, processes and memory.
	MaxLoadedSessions int
	// observe sees every outgoing line (tests).
	observe func([]byte)
}

// Server is one app-server connection.
type Server struct {
	opts Options
	out  *writer
	ctx  context.Context

	mu          sync.Mutex
	initialized bool
	originator  string                        // the client's name (initialize)
	sessions    []*session                    // one per root thread, in start order
	threads     map[protocol.ThreadID]*thread // every thread of every loaded session
	nextReqID   int64
	approvals   map[int64]*pendingApproval // server→client requests awaiting an answer
	pumps       sync.WaitGroup
}

// pendingApproval is an approval request sent to the client.
type pendingApproval struct {
	sess     *session
	approval protocol.ApprovalRequest
	answered bool // the client answered; the engine has not yet resolved it
	// userInput, when set, makes this a request_user_input question
	// (user_input.go), not an approval.
	userInput *protocol.UserInputRequest
}

// Serve runs the protocol on in/out until in ends (EOF) or ctx is done;
// then every session is shut down and every goroutine it started has
// returned.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.NewEngine == nil && opts.OpenSession == nil {
		return errors.New("app-server: no session factory")
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 64
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = 10 * time.Second
	}
	if opts.WriteStall <= 0 {
		opts.WriteStall = 60 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "0.0.0"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{
		opts: opts, ctx: ctx,
		out:       &writer{w: out, observe: opts.observe, stall: opts.WriteStall},
		threads:   map[protocol.ThreadID]*thread{},
		approvals: map[int64]*pendingApproval{},
	}

	s.out.start()
	// The reader only parses and queues; one worker handles requests in
	// order, so a slow request never stops approval answers from arriving.
	conn := rpc.NewConn(in, s.out.lines(), s.methods(), rpc.Options{
		MaxLine: maxLineBytes, AnswerBadLines: true, Workers: 1, Queue: opts.QueueSize,
		Guard: s.guard, OnResponse: s.answer,
		OtherNotification: func(m rpc.Message) {
			logging.L().Debug("app-server: ignored notification", "method", m.Method)
		},
	})
	readErr := make(chan error, 1)
	go func() { readErr <- conn.Serve(ctx) }()

	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
		// The reader stays blocked on in until its owner closes it; the
		// worker stops now and the sessions shut down below.
	}
	// The input is over: a client that also stopped reading must not keep
	// the server alive. After the grace, output is abandoned and every
	// sender (the worker, the event pumps) returns.
	giveUp := time.AfterFunc(opts.ShutdownGrace, s.out.abandon)
	defer giveUp.Stop()
	conn.Wait() // requests read before EOF are handled
	cancel()
	s.shutdown()
	s.answerUnstarted()
	s.out.finish(opts.ShutdownGrace)
	return err
}

// methods is the protocol's method table.
func (s *Server) methods() *rpc.Methods {
	m := rpc.NewMethods()
	handle(m, "initialize", s.initialize)
	rpc.HandleNotification(m, "initialized", func(context.Context, struct{}) {})
	handle(m, "thread/start", s.threadStart)
	handle(m, "thread/resume", s.threadResume)
	handle(m, "thread/list", s.threadList)
	handle(m, "thread/read", s.threadRead)
	handle(m, "thread/turns/list", s.threadTurnsList)
	handleID(m, "turn/start", s.turnStart)
	handle(m, "turn/interrupt", s.turnInterrupt)
	handle(m, "thread/note/set", s.noteSet)
	handle(m, "thread/name/set", s.threadNameSet)
	handleID(m, "review/start", s.reviewStart)
	handle(m, "skills/list", s.skillsList)
	handle(m, "thread/fork", s.threadFork)
	handle(m, "turn/steer", s.turnSteer)
	handle(m, "thread/unsubscribe", s.threadUnsubscribe)
	handle(m, "thread/archive", func(p threadIDParams) (any, *protocol.RPCError) { return s.threadArchive(p, true) })
	handle(m, "thread/unarchive", func(p threadIDParams) (any, *protocol.RPCError) { return s.threadArchive(p, false) })
	handle(m, "thread/compact/start", s.threadCompact)
	handle(m, "thread/compact", s.threadCompact)
	handle(m, "account/read", s.accountRead)
	handle(m, "config/read", s.configRead)
	handle(m, "config/value/write", s.configValueWrite)
	handle(m, "config/batchWrite", s.configBatchWrite)
	handle(m, "model/list", s.modelList)
	handle(m, "mcpServerStatus/list", s.mcpServerStatusList)
	for method := range inboxMethods {
		handleID(m, method, func(id json.RawMessage, p AppSubagentOpParams) (any, *protocol.RPCError) {
			return s.inboxOp(id, method, p)
		})
	}
	return m
}

// guard answers every request but initialize "Not initialized" until the
// client has initialized.
func (s *Server) guard(_ context.Context, method string) error {
	if method == "initialize" {
		return nil
	}
	s.mu.Lock()
	ok := s.initialized
	s.mu.Unlock()
	if !ok {
		return rpcError(protocol.RPCInvalidRequest, "Not initialized")
	}
	return nil
}

func (s *Server) initialize(p protocol.AppInitializeParams) (any, *protocol.RPCError) {
	if p.ClientInfo == nil {
		return nil, missing("clientInfo")
	}
	name := p.ClientInfo.Name
	if rerr := checkClientName(name); rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil, rpcError(protocol.RPCInvalidRequest, "Already initialized")
	}
	s.initialized = true
	// The client's name is the originator of its model requests, and
	// leads the user agent (Codex's `<originator>/<version> (…)`).
	s.originator = originatorFor(name)
	if p.Capabilities != nil && len(p.Capabilities.OptOutNotificationMethods) > 0 {
		optOut := map[string]bool{}
		for _, m := range p.Capabilities.OptOutNotificationMethods {
			optOut[m] = true
		}
		s.out.mu.Lock()
		s.out.optOut = optOut
		s.out.mu.Unlock()
	}
	return protocol.AppInitializeResponse{
		CodexHome: s.opts.Home, PlatformFamily: platformFamily(), PlatformOs: platformOS(),
		UserAgent: fmt.Sprintf("%s/%s (%s; %s) grove (%s; %s)", s.originator, s.opts.Version, platformOS(), runtime.GOARCH, name, p.ClientInfo.Version),
	}, nil
}

// shutdown closes every session and waits for their event pumps.
func (s *Server) shutdown() {
	s.mu.Lock()
	sessions := append([]*session(nil), s.sessions...)
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sess := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
			defer cancel()
			if err := sess.core.Close(ctx); err != nil {
				logging.L().Warn("app-server: session close", "err", err)
			}
		}()
	}
	wg.Wait()
	s.pumps.Wait()
}

// answerUnstarted answers the turn/start requests whose turn never started
// (the input ended, and the server with it, before the engine took them):
// a client waiting on one gets an error instead of silence.
func (s *Server) answerUnstarted() {
	s.mu.Lock()
	var ids []json.RawMessage
	for _, t := range s.threads {
		for cid, id := range t.startWaiting {
			ids = append(ids, id)
			delete(t.startWaiting, cid)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		_ = s.out.fail(id, rpcError(protocol.RPCInternalError, "turn/start: the server shut down (end of input) before the turn started"))
	}
}

// checkClientName refuses a client name that cannot be an HTTP header
// value (Codex sends it as the originator header), with Codex's error
// (initialize.rs initialize_rejects_invalid_client_name).
func checkClientName(name string) *protocol.RPCError {
	if strings.TrimSpace(name) == "" {
		return missing("clientInfo.name")
	}
	for _, r := range name {
		if (r < 0x20 && r != '\t') || r >= 0x7f {
			return rpcError(protocol.RPCInvalidRequest, "Invalid clientInfo.name: '%s'. Must be a valid HTTP header value.", name)
		}
	}
	return nil
}

// originatorFor is the originator of a client's requests: its name, or
// CODEX_INTERNAL_ORIGINATOR_OVERRIDE (initialize.rs
// initialize_respects_originator_override_env_var).
func originatorFor(name string) string {
	if o := strings.TrimSpace(os.Getenv("CODEX_INTERNAL_ORIGINATOR_OVERRIDE")); o != "" && checkClientName(o) == nil {
		return o
	}
	return name
}
