package mcp

//lint:file-ignore SA1019 MCP roots and sampling are deprecated (SEP-2577) but servers still use them during the deprecation window; grove keeps offering them

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// State is where a server is in its life.
type State string

const (
	StateIdle     State = "idle"     // not started yet (starts on first use)
	StateStarting State = "starting" // connecting / initialize / tools/list
	StateReady    State = "ready"
	StateFailed   State = "failed"   // did not start, or died twice; tools absent
	StateDenied   State = "denied"   // a project server the user did not approve
	StateDisabled State = "disabled" // enabled = false
	StateClosed   State = "closed"
)

// server is one configured MCP server: one connection shared by every
// agent of the tree, calls multiplexed over it.
type server struct {
	name    string
	cfg     config.MCPServer
	project *projectOrigin // non-nil: from a project .mcp.json, needs approval
	m       *Manager

	mu         sync.Mutex
	state      State
	err        error
	conn       *connection
	tools      []*mcpTool
	stale      bool          // tools/list_changed arrived: list again on next use
	starting   chan struct{} // closed when the running start attempt ends
	deaths     int           // times the connection died under us
	attempts   int           // start attempts (one per process started)
	warnings   []string      // not yet published (no thread to publish through)
	approvedFP string        // the fingerprint a project server was approved at (currentFingerprint)
	// active are the calls running now (sampling asks their user).
	active activeCalls
}

// connection is one live session with its process (stdio) or nothing (HTTP).
type connection struct {
	session *sdk.ClientSession
	proc    *stdioProcess
	closing atomic.Bool
	done    chan struct{} // closed when the session ended (watch)
}

// abort ends the session and every process it started (before watch runs).
func (c *connection) abort() {
	c.closing.Store(true)
	_ = c.session.Close()
	c.proc.kill()
}

// close is abort for a watched connection: it returns once watch is done.
func (c *connection) close() {
	if c == nil {
		return
	}
	c.abort()
	<-c.done
}

// snapshot returns the current tools without starting anything.
func (s *server) snapshot() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	out := make([]tools.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t
	}
	return out
}

// ensure starts the server if it has not started (or died once), lists its
// tools again after list_changed, and publishes pending warnings through
// env. Concurrent callers share one start.
func (s *server) ensure(ctx context.Context, env *tools.Env) {
	for {
		s.mu.Lock()
		switch s.state {
		case StateIdle:
			s.state = StateStarting
			s.starting = make(chan struct{})
			s.attempts++
			s.mu.Unlock()
			s.start(ctx, env)
		case StateStarting:
			ch := s.starting
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return
			}
		case StateReady:
			stale, conn := s.stale, s.conn
			s.stale = false
			s.mu.Unlock()
			if stale {
				s.refresh(ctx, conn)
			}
		default:
			s.mu.Unlock()
		}
		s.flushWarnings(env)
		return
	}
}

// warn records a warning for the status list and the next thread that
// looks at this server's tools.
func (s *server) warnLocked(msg string) {
	s.warnings = append(s.warnings, msg)
	s.m.logWarning(msg)
}

func (s *server) flushWarnings(env *tools.Env) {
	if env == nil || env.Emit == nil {
		return
	}
	s.mu.Lock()
	ws := s.warnings
	s.warnings = nil
	s.mu.Unlock()
	for _, w := range ws {
		env.Emit(protocol.NewEvent("", "", protocol.WarningMsg{Text: w}))
	}
}

// start runs one start attempt: approval (project servers), connect,
// initialize, tools/list; it ends in ready, failed or denied.
func (s *server) start(ctx context.Context, env *tools.Env) {
	state, err := s.connect(ctx, env)
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.starting)
	if s.state == StateClosed {
		return
	}
	s.state, s.err = state, err
	if err != nil {
		s.warnLocked(err.Error())
	}
}

func (s *server) connect(ctx context.Context, env *tools.Env) (State, error) {
	// Closing the Manager ends the attempt, even one waiting for an approval.
	ctx, stopCtx := context.WithCancel(ctx)
	defer stopCtx()
	defer context.AfterFunc(s.m.ctx, stopCtx)()
	if s.project != nil {
		// Every start (a restart too) checks what will run now: an entry
		// or a project file changed since the approval asks again.
		fp, files := s.project.currentFingerprint(s.cfg)
		if fp != s.approvedFP {
			ok, err := s.m.approveProject(ctx, env, s, fp, files)
			if !ok {
				if ctx.Err() != nil {
					return StateIdle, nil // the asking turn was interrupted: ask again next time
				}
				return StateDenied, err
			}
			s.approvedFP = fp
		}
	}
	timeout := s.cfg.StartupTimeout()
	sctx, cancel := context.WithTimeout(s.m.ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // the asking thread gave up
	defer stop()
	conn, err := s.dial(sctx)
	if err != nil {
		if ctx.Err() != nil {
			return StateIdle, nil
		}
		if errors.Is(sctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("did not answer initialize within %s (startup_timeout_sec); %w", timeout, err)
		}
		return StateFailed, fmt.Errorf("MCP server %s failed to start: %w; its tools are unavailable", s.name, err)
	}
	list, err := s.listTools(sctx, conn)
	if err != nil {
		conn.abort()
		if ctx.Err() != nil {
			return StateIdle, nil
		}
		return StateFailed, fmt.Errorf("MCP server %s: tools/list failed: %w; its tools are unavailable", s.name, err)
	}
	s.mu.Lock()
	if s.state == StateClosed {
		s.mu.Unlock()
		conn.abort()
		return StateClosed, nil
	}
	s.conn, s.tools = conn, list
	s.mu.Unlock()
	s.m.wg.Add(1)
	go s.watch(conn)
	return StateReady, nil
}

// dial starts the transport and runs the initialize handshake.
func (s *server) dial(ctx context.Context) (*connection, error) {
	c := &connection{done: make(chan struct{})}
	var transport sdk.Transport
	if s.cfg.URL != "" {
		t, err := newHTTPTransport(s.name, s.cfg)
		if err != nil {
			return nil, err
		}
		transport = t
	} else {
		cfg, err := s.m.launchSpec(s)
		if err != nil {
			return nil, err
		}
		t, proc := newStdioTransport(cfg)
		transport, c.proc = t, proc
	}
	opts := &sdk.ClientOptions{
		Capabilities:                &sdk.ClientCapabilities{},
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.markStale() },
		ProgressNotificationHandler: s.m.progress.handle,
	}
	roots := fileRoots(s.m.roots)
	if len(roots) > 0 {
		opts.Capabilities.RootsV2 = &sdk.RootCapabilities{} // fixed for the session: no listChanged
	}
	if s.m.sampler != nil {
		opts.CreateMessageHandler = s.createMessage
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "grove", Version: s.m.version}, opts)
	client.AddRoots(roots...)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		c.proc.kill()
		if c.proc != nil {
			if tail := c.proc.stderr.String(); tail != "" {
				err = fmt.Errorf("%w (stderr: %s)", err, clip(tail, 500))
			}
		}
		return nil, err
	}
	c.session = session
	return c, nil
}

// watch notices a connection that ended without grove closing it: the
// server gets one restart (on next use); a second death is final.
func (s *server) watch(c *connection) {
	defer s.m.wg.Done()
	err := c.session.Wait()
	_ = c.session.Close() // releases the session's own goroutines
	c.proc.kill()         // reap anything the server left in its group
	close(c.done)
	if c.closing.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c || s.state == StateClosed {
		return
	}
	s.conn, s.tools = nil, nil
	s.deaths++
	why := "the connection closed"
	if err != nil {
		why = err.Error()
	}
	if c.proc != nil {
		if tail := c.proc.stderr.String(); tail != "" {
			why += " (stderr: " + clip(tail, 500) + ")"
		}
	}
	if s.deaths == 1 {
		s.state = StateIdle
		s.warnLocked(fmt.Sprintf("MCP server %s stopped (%s); restarting it on next use", s.name, why))
		return
	}
	s.state, s.err = StateFailed, fmt.Errorf("MCP server %s stopped again (%s); not restarted, its tools are unavailable", s.name, why)
	s.warnLocked(s.err.Error())
}

func (s *server) markStale() {
	s.mu.Lock()
	s.stale = true
	s.mu.Unlock()
	s.m.notifyChanged()
}

// refresh lists the tools again after notifications/tools/list_changed.
func (s *server) refresh(ctx context.Context, c *connection) {
	lctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout())
	defer cancel()
	list, err := s.listTools(lctx, c)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	if err != nil {
		s.stale = true        // try again next time
		if ctx.Err() == nil { // an interrupted turn is not the server's fault
			s.warnLocked(fmt.Sprintf("MCP server %s: listing tools after a change failed: %v", s.name, err))
		}
		return
	}
	s.tools = list
}

// listTools reads every page of tools/list and keeps the enabled ones.
func (s *server) listTools(ctx context.Context, c *connection) ([]*mcpTool, error) {
	var out []*mcpTool
	seen := map[string]bool{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if t == nil || t.Name == "" || seen[t.Name] || !s.toolEnabled(t.Name) {
			continue
		}
		seen[t.Name] = true
		out = append(out, newMCPTool(s, t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].raw < out[j].raw })
	return out, nil
}

// toolEnabled applies enabled_tools / disabled_tools (exact names, as Codex).
func (s *server) toolEnabled(name string) bool {
	if len(s.cfg.EnabledTools) > 0 && !slices.Contains(s.cfg.EnabledTools, name) {
		return false
	}
	return !slices.Contains(s.cfg.DisabledTools, name)
}

// current returns the live connection, restarting a server that died once.
func (s *server) current(ctx context.Context, env *tools.Env) (*connection, error) {
	s.ensure(ctx, env)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady || s.conn == nil {
		if s.err != nil {
			return nil, s.err
		}
		return nil, fmt.Errorf("MCP server %s is %s", s.name, s.state)
	}
	return s.conn, nil
}

// close stops the server for good.
func (s *server) close() {
	s.mu.Lock()
	c := s.conn
	var starting chan struct{}
	if s.state == StateStarting {
		starting = s.starting
	}
	s.conn, s.tools, s.state = nil, nil, StateClosed
	s.mu.Unlock()
	c.close()
	if starting != nil {
		<-starting // the attempt sees the closed state and stops what it started
	}
}

// status reports the server for /mcp and `grove mcp list`.
func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.name, State: s.state, Tools: len(s.tools), Transport: "stdio"}
	if s.cfg.URL != "" {
		st.Transport = "http"
	}
	if s.project != nil {
		st.Source = s.project.file
	}
	if s.err != nil {
		st.Error = s.err.Error()
	}
	for _, t := range s.tools {
		st.ToolNames = append(st.ToolNames, t.name)
		st.ToolInfos = append(st.ToolInfos, ToolInfo{Name: t.raw, Description: t.spec.Description, InputSchema: t.spec.Parameters, ReadOnly: t.readOnly})
	}
	return st
}

// ServerStatus describes one server.
type ServerStatus struct {
	Name      string   `json:"name"`
	State     State    `json:"state"`
	Transport string   `json:"transport"`
	Source    string   `json:"source,omitempty"` // the project .mcp.json, if from one
	Tools     int      `json:"tools"`
	ToolNames []string `json:"tool_names,omitempty"`
	Error     string   `json:"error,omitempty"`
	// ToolInfos describe the tools (the app-server's mcpServerStatus/list).
	ToolInfos []ToolInfo `json:"-"`
}

// ToolInfo is one tool as its server names and describes it.
type ToolInfo struct {
	Name        string // the server's own name for it
	Description string
	InputSchema json.RawMessage // as offered to the model
	ReadOnly    bool            // annotated readOnlyHint
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

var progressSeq atomic.Uint64

func nextProgressToken() string { return "grove-" + strconv.FormatUint(progressSeq.Add(1), 10) }
