package inbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// whoOf names the asking thread: "root", or the sub-agent's task word
// (tasks in these tests start with a one-word name).
func whoOf(req model.Request) string {
	if !strings.Contains(req.Instructions, "You are a sub-agent working on a task") {
		return "root"
	}
	return surfacetest.TaskWord(req)
}

var call = surfacetest.ToolCall

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
func output(c *surfacetest.Scripted, who, callID string) (string, bool) {
	for _, req := range c.Requests(who) {
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
	env := surfacetest.Start(t, surfacetest.Config{
		Client: c, Home: s.home, Model: "gpt-test", MaxDepth: s.maxDepth, Surface: Name,
		Surfaces: []engine.SurfaceFactory{New},
	})
	return env.Engine
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
