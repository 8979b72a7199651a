package inbox

import (
	"context"
	"encoding/json"
	"strings"
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

// scripted computes each reply from the request: who asks (the root, or a
// sub-agent named by its task) and the conversation so far.
type scripted struct {
	mu    sync.Mutex
	reply func(who string, req model.Request) model.Response
	reqs  map[string][]model.Request
}

// whoOf names the asking thread: "root", or the sub-agent's task word
// (tasks in these tests start with a one-word name).
func whoOf(req model.Request) string {
	if !strings.Contains(req.Instructions, "You are a sub-agent working on a task") {
		return "root"
	}
	for _, it := range req.Items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			lines := strings.Split(strings.TrimSpace(it.Content), "\n")
			return strings.Fields(lines[len(lines)-1])[0]
		}
	}
	return "?"
}

func (s *scripted) Stream(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	who := whoOf(req)
	s.mu.Lock()
	if s.reqs == nil {
		s.reqs = map[string][]model.Request{}
	}
	s.reqs[who] = append(s.reqs[who], req)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	// A reply that blocks (a test holding a sub-agent at work) still ends
	// with its turn, as a real provider's stream does.
	done := make(chan model.Response, 1)
	go func() { done <- s.reply(who, req) }()
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		return model.Response{}, ctx.Err()
	}
}

func (s *scripted) Models(context.Context) ([]model.ModelInfo, error) {
	return nil, model.ErrModelsUnsupported
}
func (s *scripted) Name() string { return "scripted" }

func (s *scripted) requests(who string) []model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.Request(nil), s.reqs[who]...)
}

func call(id, name, args string) model.Response {
	return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: id, Name: name, Arguments: args}}}
}

func say(text string) model.Response {
	return model.Response{Text: text}
}

// last is the request's last item.
func last(req model.Request) protocol.Item {
	if len(req.Items) == 0 {
		return protocol.Item{}
	}
	return req.Items[len(req.Items)-1]
}

// output finds a call's output in any of who's requests.
func output(c *scripted, who, callID string) (string, bool) {
	for _, req := range c.requests(who) {
		for _, it := range req.Items {
			if it.Type == protocol.ItemFunctionCallOutput && it.CallID == callID {
				return it.Output, true
			}
		}
	}
	return "", false
}

func jsonOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return m
}

type setup struct {
	home     string
	maxDepth int
}

// start runs an engine with the inbox surface selected.
func start(t *testing.T, c model.Client, s setup) (*engine.Engine, protocol.ThreadID) {
	t.Helper()
	e := newEngine(t, c, s)
	root, err := e.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	return e, root
}

func newEngine(t *testing.T, c model.Client, s setup) *engine.Engine {
	t.Helper()
	if s.home == "" {
		s.home = t.TempDir()
	}
	cwd := t.TempDir()
	cat := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: s.home}, templates.Options{})
	e, err := engine.New(context.Background(), engine.Options{
		Home: s.home, Client: c, Model: "gpt-test", Cwd: cwd, Templates: cat, Headless: true,
		ApprovalPolicy: protocol.ApprovalNever, MaxDepth: s.maxDepth,
		Surfaces:      []engine.SurfaceFactory{surface.CollabFactory, New},
		SelectSurface: surface.Selector(Name),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(e) })
	return e
}

func shutdown(e *engine.Engine) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = e.Shutdown(ctx)
}

// runUntilSettled submits a prompt and waits until the root is idle and
// the engine reports no inbox work pending (grove exec's end condition).
func runUntilSettled(t *testing.T, e *engine.Engine, root protocol.ThreadID, prompt string) protocol.AgentStatus {
	t.Helper()
	events, cancel := e.Subscribe()
	defer cancel()
	if err := e.SubmitText(root, prompt); err != nil {
		t.Fatal(err)
	}
	return waitSettled(t, e, root, events)
}

func waitSettled(t *testing.T, e *engine.Engine, root protocol.ThreadID, events <-chan protocol.Event) protocol.AgentStatus {
	t.Helper()
	guard := time.After(60 * time.Second) // a hang guard, not a timing assert
	for {
		rep, _ := e.Report(root)
		if !rep.Status.IsActive() && rep.Status.Kind != "" && e.Settled() {
			return rep.Status
		}
		select {
		case _, ok := <-events:
			if !ok {
				t.Fatal("event stream closed")
			}
		case <-guard:
			t.Fatalf("session did not settle; root %v", rep.Status)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
