// Package acp is `grove acp`: the Agent Client Protocol (Zed, JetBrains,
// Neovim plugins) over stdio, on github.com/coder/acp-go-sdk, as a front end
// over grove's engine Op/Event API. An ACP session is a grove root thread;
// sub-agents appear as tool calls of their parent (ACP has no tree).
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// EngineFactory builds an engine (not yet started) for a session in cwd.
// Every engine shares $GROVE_HOME, so sessions resume across front ends.
// mcpServers are the client's own MCP servers for the session (from
// session/new or session/load), started next to the configured ones.
type EngineFactory func(ctx context.Context, cwd string, mcpServers map[string]config.MCPServer) (*engine.Engine, error)

// SessionFactory opens a session of the core (core/app) for an ACP
// session in cwd: new, or loaded as start says.
type SessionFactory func(ctx context.Context, cwd string, mcpServers map[string]config.MCPServer, start app.Start) (*app.Session, error)

// Options configure the agent.
type Options struct {
	// OpenSession opens each session/new and session/load; nil: the
	// engines of NewEngine, adopted.
	OpenSession SessionFactory
	NewEngine   EngineFactory
	Version     string
	// ShutdownGrace bounds the engines' shutdown when the client goes away.
	ShutdownGrace time.Duration
	// Home is $GROVE_HOME, whose session index session/list reads.
	Home string
	// ListModels names the models a session may switch to (config and
	// provider); nil offers only the current one.
	ListModels func(ctx context.Context) []string
}

// agent implements the SDK's Agent and AgentLoader.
type agent struct {
	opts Options
	// conn is set once NewAgentSideConnection returns; the SDK already
	// reads (and calls NewSession) inside it, so users wait on connReady.
	conn      *sdk.AgentSideConnection
	connReady chan struct{}
	ctx       context.Context // ends when the connection does

	mu       sync.Mutex
	sessions map[sdk.SessionId]*session
	wg       sync.WaitGroup // event pumps and permission requests
}

var (
	_ sdk.Agent       = (*agent)(nil)
	_ sdk.AgentLoader = (*agent)(nil)
)

// Serve runs the protocol on in/out until the client disconnects (EOF) or
// ctx ends; then every session is shut down and its goroutines have ended.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.NewEngine == nil && opts.OpenSession == nil {
		return errors.New("acp: no session factory")
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &agent{opts: opts, ctx: ctx, sessions: map[sdk.SessionId]*session{}, connReady: make(chan struct{})}
	a.conn = sdk.NewAgentSideConnection(a, out, in)
	close(a.connReady)
	// No SetLogger: the SDK starts reading in NewAgentSideConnection, so
	// setting it afterwards races with that reader. Its default,
	// slog.Default, writes through the log package, which grove routes
	// into its debug log.
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	cancel()
	a.shutdown()
	return nil
}

func (a *agent) shutdown() {
	a.mu.Lock()
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), a.opts.ShutdownGrace)
			defer cancel()
			if err := s.close(ctx); err != nil {
				logging.L().Warn("acp: session close", "err", err)
			}
		}()
	}
	wg.Wait()
	a.wg.Wait()
}

func (a *agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:     sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}},
		},
		AgentInfo:   &sdk.Implementation{Name: "grove", Version: a.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// checkCwd enforces ACP's rule: the session directory is an absolute path.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return sdk.NewInvalidParams(map[string]any{"cwd": fmt.Sprintf("must be an absolute path, got %q", cwd)})
	}
	return nil
}

func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s, err := a.open(p.Cwd, "", p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	a.startPump(s)
	return sdk.NewSessionResponse{SessionId: s.id, Modes: s.modeState(), Models: s.modelState(ctx)}, nil
}

// LoadSession resumes a stored session and replays its conversation as
// session/update notifications before answering.
func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"sessionId": "required"})
	}
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	a.mu.Lock()
	_, loaded := a.sessions[p.SessionId]
	a.mu.Unlock()
	if loaded {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"sessionId": fmt.Sprintf("session %s is already loaded", p.SessionId)})
	}
	s, err := a.open(p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.replay(ctx); err != nil {
		return sdk.LoadSessionResponse{}, fmt.Errorf("replay session %s: %w", s.id, err)
	}
	a.startPump(s)
	return sdk.LoadSessionResponse{Modes: s.modeState(), Models: s.modelState(ctx)}, nil
}

// open opens a session of the core (subscribed before its root starts)
// and registers it.
func (a *agent) open(cwd, resumeID string, mcpServers []sdk.McpServer) (*session, error) {
	servers, skipped := clientMCPServers(mcpServers)
	start := app.Start{Resume: resumeID, Subscribe: true}
	var core *app.Session
	var err error
	if a.opts.OpenSession != nil {
		core, err = a.opts.OpenSession(a.ctx, cwd, servers, start)
	} else {
		var eng *engine.Engine
		if eng, err = a.opts.NewEngine(a.ctx, cwd, servers); err == nil {
			core, err = app.Adopt(eng, start)
		}
	}
	if err != nil {
		return nil, err
	}
	s := newSession(a, core.Engine(), core.Root(), core.Events(), func() {})
	s.core = core
	for _, why := range skipped {
		logging.L().Warn("acp: client MCP server skipped", "session", string(s.id), "reason", why)
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

// close ends the session: its core's Close (the engine, then what it
// owns), or for a bare engine its shutdown and the subscription.
func (s *session) close(ctx context.Context) error {
	if s.core != nil {
		return s.core.Close(ctx)
	}
	err := s.eng.Shutdown(ctx)
	s.stopEvents()
	return err
}

func (a *agent) startPump(s *session) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		s.pump()
	}()
}

func (a *agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil, sdk.NewInvalidParams(map[string]any{"sessionId": fmt.Sprintf("unknown session %s (session/new or session/load it first)", id)})
	}
	return s, nil
}

// Prompt runs one turn of the session's root and answers when it ends.
func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	items, err := promptItems(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"prompt": err.Error()})
	}
	return s.prompt(ctx, items)
}

func (a *agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return nil // a notification has no answer; nothing to cancel
	}
	return s.cancel()
}

func (a *agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

func (a *agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// promptItems converts ACP content blocks to engine input: text, images
// (as data: URLs), and embedded or linked resources as text.
func promptItems(blocks []sdk.ContentBlock) ([]protocol.InputItem, error) {
	var out []protocol.InputItem
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			out = append(out, protocol.InputItem{Type: "text", Text: b.Text.Text})
		case b.Image != nil:
			if b.Image.Data == "" || b.Image.MimeType == "" {
				return nil, fmt.Errorf("prompt[%d]: image needs data and mimeType", i)
			}
			out = append(out, protocol.InputItem{Type: "image", ImageURL: "data:" + b.Image.MimeType + ";base64," + b.Image.Data})
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			out = append(out, protocol.InputItem{Type: "text", Text: fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.Uri, r.Text)})
		case b.ResourceLink != nil:
			out = append(out, protocol.InputItem{Type: "text", Text: "@" + b.ResourceLink.Uri})
		default:
			return nil, fmt.Errorf("prompt[%d]: unsupported content block", i)
		}
	}
	if len(out) == 0 || (len(out) == 1 && out[0].Type == "text" && strings.TrimSpace(out[0].Text) == "") {
		return nil, errors.New("prompt is empty")
	}
	return out, nil
}

// connection is the client connection, once Serve has it.
func (a *agent) connection() *sdk.AgentSideConnection {
	<-a.connReady
	return a.conn
}
