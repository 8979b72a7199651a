// Package surfacetest is the one harness the seed surface tests share: it
// runs a real engine with the chosen delegation surfaces against
// modeltest's in-process Chat Completions server, scripts each thread's
// model turns, and lets a test read what the model was sent back (tool
// results byte for byte, as they crossed the wire) and every event the
// engine emitted. Each surface test used to build its own engine, mock
// model and fixtures; a case here is a seed clause, a surface, scripted
// turns and assertions.
package surfacetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// DefaultModel is the root's model unless a Config names another; the
// server's model list holds it.
const DefaultModel = "test-model"

// Config is what a case varies. The zero value is a collab session in a
// fresh git project, headless, with approvals never asked.
type Config struct {
	// Surfaces are the factories registered besides collab's (the task,
	// inbox or sessions surface under test); Surface selects one by name
	// (default collab).
	Surfaces []engine.SurfaceFactory
	Surface  string
	// Model is the root's model; Models is what GET /models lists
	// (default: just Model).
	Model  string
	Models []string
	// Files are written into the project (a git root) before the engine
	// starts, by path relative to it, e.g. ".grove/agents/x.md".
	Files map[string]string
	// HomeFiles are written into grove's home the same way.
	HomeFiles map[string]string
	// Interactive sends approvals to the user (on-request policy) instead
	// of the headless policy.
	Interactive bool
	MaxDepth    int
	Aliases     map[string]string
	// Turns scripts each thread's model, see Turns.
	Turns Turns
	// Options, when set, adjusts the engine options last.
	Options func(*engine.Options)
	// Client replaces the modeltest server (Env.Server is then nil):
	// a Scripted client, for tests that script in Go types.
	Client model.Client
	// Home and Cwd reuse directories (a second engine on the same home);
	// empty: fresh temporary ones.
	Home, Cwd string
}

// Env is one running session: engine, root thread, model server, events.
type Env struct {
	T      testing.TB
	Engine *engine.Engine
	Root   protocol.ThreadID
	Server *modeltest.Server
	Home   string
	Cwd    string
	Events *Recorder
}

// Start runs a session for cfg; t's cleanup shuts it down.
func Start(t testing.TB, cfg Config) *Env {
	t.Helper()
	env := &Env{T: t, Home: cfg.Home, Cwd: cfg.Cwd}
	if env.Home == "" {
		env.Home = t.TempDir()
	}
	if env.Cwd == "" {
		env.Cwd = t.TempDir()
		writeFiles(t, env.Cwd, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	}
	writeFiles(t, env.Cwd, cfg.Files)
	writeFiles(t, env.Home, cfg.HomeFiles)
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	client := cfg.Client
	if client == nil {
		client = env.serve(cfg)
	}
	opts := engineOptions(env, cfg, client)
	e, err := engine.New(context.Background(), opts)
	if err != nil {
		t.Fatalf("engine: %v", err)
	}
	env.Engine = e
	env.Events = record(e)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
		env.Events.stop()
	})
	if env.Root, err = e.StartRoot(); err != nil {
		t.Fatalf("start root: %v", err)
	}
	return env
}

// serve starts the modeltest server for cfg's turns and a chat client
// for it.
func (env *Env) serve(cfg Config) model.Client {
	if cfg.Models == nil {
		cfg.Models = []string{cfg.Model}
	}
	env.Server = modeltest.NewServer(env.T)
	env.Server.SetModels(cfg.Models)
	env.Server.Handle(cfg.Turns.handler(env))
	client, err := model.New(model.ProviderConfig{Name: "modeltest", BaseURL: env.Server.URL(), WireAPI: "chat", RetryBaseDelay: 1})
	if err != nil {
		env.T.Fatalf("model client: %v", err)
	}
	return client
}

func engineOptions(env *Env, cfg Config, client model.Client) engine.Options {
	name := cfg.Surface
	if name == "" {
		name = surface.Collab
	}
	policy := protocol.ApprovalNever
	if cfg.Interactive {
		policy = protocol.ApprovalOnRequest
	}
	cat := templates.Load(templates.Dirs{Cwd: env.Cwd, GroveHome: env.Home}, templates.Options{ModelAliases: cfg.Aliases})
	opts := engine.Options{
		Home: env.Home, Client: client, Model: cfg.Model, Cwd: env.Cwd, Templates: cat,
		Headless: !cfg.Interactive, ApprovalPolicy: policy, MaxDepth: cfg.MaxDepth,
		Surfaces:      append([]engine.SurfaceFactory{surface.CollabFactory}, cfg.Surfaces...),
		SelectSurface: surface.Selector(name),
		ModelAliases:  cfg.Aliases,
	}
	if cfg.Options != nil {
		cfg.Options(&opts)
	}
	return opts
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatalf("write fixture %s: %v", name, err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatalf("write fixture %s: %v", name, err)
		}
	}
}

// Run submits prompt to the root and waits until the root is idle and
// the engine has no inbox work pending (grove exec's end condition). The
// wait follows events; the guard only turns a hang into a failure.
func (env *Env) Run(prompt string) protocol.AgentStatus {
	env.T.Helper()
	mark := env.Events.Len()
	if err := env.Engine.SubmitText(env.Root, prompt); err != nil {
		env.T.Fatalf("submit: %v", err)
	}
	guard := time.After(60 * time.Second)
	for {
		// Take the channel before looking, so an event that lands
		// between the look and the wait still wakes this loop.
		changed := env.Events.Changed()
		rep, _ := env.Engine.Report(env.Root)
		if env.Events.Since(mark, isRootTurnEnd(env.Root)) && !rep.Status.IsActive() && env.Engine.Settled() {
			return rep.Status
		}
		select {
		case <-changed:
		case <-guard:
			env.T.Fatalf("session did not settle; root %v", rep.Status)
		}
	}
}

func isRootTurnEnd(root protocol.ThreadID) func(protocol.Event) bool {
	return func(ev protocol.Event) bool {
		return ev.ThreadID == root && ev.Type == protocol.EventTurnCompleted
	}
}
