package task

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scripted is a model whose replies a test computes from each request:
// the role (from the instructions) and the conversation so far.
type scripted struct {
	mu    sync.Mutex
	reply func(role string, req model.Request) model.Response
	reqs  map[string][]model.Request
}

var roleRe = regexp.MustCompile(`# Your role: (\S+)`)

func roleOf(req model.Request) string {
	if m := roleRe.FindStringSubmatch(req.Instructions); m != nil {
		return m[1]
	}
	return "root"
}

func (s *scripted) Stream(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	role := roleOf(req)
	s.mu.Lock()
	if s.reqs == nil {
		s.reqs = map[string][]model.Request{}
	}
	s.reqs[role] = append(s.reqs[role], req)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	resp := s.reply(role, req)
	resp.Usage = protocol.TokenUsage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
	return resp, nil
}

func (s *scripted) Models(context.Context) ([]model.ModelInfo, error) {
	return nil, model.ErrModelsUnsupported
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) requests(role string) []model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.Request(nil), s.reqs[role]...)
}

// call is a tool call reply.
func call(id, name, args string) model.Response {
	return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: id, Name: name, Arguments: args}}}
}

// outputs maps call ids to their outputs in a request's conversation.
func outputs(req model.Request) map[string]string {
	out := map[string]string{}
	for _, it := range req.Items {
		if it.Type == protocol.ItemFunctionCallOutput {
			out[it.CallID] = it.Output
		}
	}
	return out
}

// lastUser is the last user (or agent) message of a request.
func lastUser(req model.Request) string {
	for i := len(req.Items) - 1; i >= 0; i-- {
		it := req.Items[i]
		if it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent) {
			return it.Content
		}
	}
	return ""
}

func toolNames(req model.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// project makes a project directory (a git root) with agent files.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, ".grove", "agents", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type setup struct {
	home, cwd string
	model     string
	surface   string
	trust     bool
	env       map[string]string
	aliases   map[string]string
	// interactive: approvals reach the user (PendingApprovals) instead of
	// the headless policy.
	interactive bool
	// disabled, defaults and agentsDir are seed 004's SubagentConfig.
	disabled  bool
	defaults  Defaults
	agentsDir string
}

// start runs an engine with both surfaces and a root thread.
func start(t *testing.T, c model.Client, s setup) (*engine.Engine, protocol.ThreadID) {
	t.Helper()
	if s.home == "" {
		s.home = t.TempDir()
	}
	if s.cwd == "" {
		s.cwd = project(t, nil)
	}
	if s.model == "" {
		s.model = "gpt-test"
	}
	if s.surface == "" {
		s.surface = surface.Task
	}
	cat := templates.Load(templates.Dirs{Cwd: s.cwd, GroveHome: s.home, AgentsDir: s.agentsDir}, templates.Options{ModelAliases: s.aliases})
	env := func(k string) string { return s.env[k] }
	e, err := engine.New(context.Background(), engine.Options{
		Home: s.home, Client: c, Model: s.model, Cwd: s.cwd, Templates: cat, Headless: !s.interactive,
		ApprovalPolicy: approvalPolicy(s),
		Surfaces: []engine.SurfaceFactory{surface.CollabFactory, Factory(Options{
			ModelAliases: s.aliases, TrustCustomAgents: s.trust, Getenv: env,
			Disabled: s.disabled, Defaults: s.defaults,
		})},
		SelectSurface: surface.Selector(s.surface),
		ModelAliases:  s.aliases,
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := e.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	return e, root
}

func approvalPolicy(s setup) protocol.ApprovalPolicy {
	if s.interactive {
		return protocol.ApprovalOnRequest
	}
	return protocol.ApprovalNever
}

// runRoot submits a prompt to the root and waits for its turn to end.
func runRoot(t *testing.T, e *engine.Engine, root protocol.ThreadID, prompt string) protocol.AgentStatus {
	t.Helper()
	if err := e.SubmitText(root, prompt); err != nil {
		t.Fatal(err)
	}
	st, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second)
	if err != nil || timedOut {
		t.Fatalf("root did not finish: timedOut=%v err=%v", timedOut, err)
	}
	return st
}

// toolOutput decodes the JSON a tool returned to the root.
func toolOutput(t *testing.T, c *scripted, callID string) map[string]any {
	t.Helper()
	for _, req := range c.requests("root") {
		if out, ok := outputs(req)[callID]; ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("output of %s is not JSON: %v\n%s", callID, err, out)
			}
			return m
		}
	}
	t.Fatalf("no output for call %s", callID)
	return nil
}

func rawOutput(c *scripted, callID string) string {
	for _, req := range c.requests("root") {
		if out, ok := outputs(req)[callID]; ok {
			return out
		}
	}
	return ""
}
