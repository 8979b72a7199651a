package engine

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// gatedTool counts the calls inside it; alone makes it a tools.Alone (an
// MCP server without supports_parallel_tool_calls). Each call first waits
// at enter (the test's hand), then returns.
type gatedTool struct {
	name    string
	alone   bool
	enter   chan string // each call sends its id on entry
	release chan struct{}
	mu      sync.Mutex
	inside  int
	most    int
}

func (g *gatedTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: g.name, Description: "test", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (g *gatedTool) RunsAlone() bool { return g.alone }

func (g *gatedTool) Run(ctx context.Context, env *tools.Env, _ json.RawMessage) tools.Result {
	g.mu.Lock()
	g.inside++
	g.most = max(g.most, g.inside)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inside--
		g.mu.Unlock()
	}()
	g.enter <- env.CallID
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return tools.Result{Output: "done"}
}

// TestCallsOfAToolThatRunsAloneDoNotOverlap ports Codex's parallel gate
// (codex-rs/core/src/tools/parallel.rs, handle_tool_call_with_source: a
// tool without supports_parallel takes the runtime's write lock, the
// others its read lock): two calls of one reply to a tool that runs alone
// run one after the other, in call order; two calls of a tool that does
// not are inside it at the same time.
func TestCallsOfAToolThatRunsAloneDoNotOverlap(t *testing.T) {
	for _, alone := range []bool{true, false} {
		g := &gatedTool{name: "gated_tool", alone: alone, enter: make(chan string, 2), release: make(chan struct{})}
		env := newEnv(t, script{"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("c1", "gated_tool", map[string]any{}), toolCall("c2", "gated_tool", map[string]any{})), nil
			}
			return text("both ran"), nil
		}}, nil)
		if err := env.e.tools.Register(g); err != nil {
			t.Fatal(err)
		}
		env.send("run both")
		if first := <-g.enter; first != "c1" {
			t.Fatalf("alone=%v: %s entered first", alone, first)
		}
		if !alone {
			// Both are inside before either is released: they overlap.
			if second := <-g.enter; second != "c2" {
				t.Fatalf("second call %s", second)
			}
		}
		close(g.release)
		if alone {
			<-g.enter
		}
		if st := env.rootFinal(1); st.Message != "both ran" {
			t.Fatalf("alone=%v: %v", alone, st)
		}
		g.mu.Lock()
		most := g.most
		g.mu.Unlock()
		if want := map[bool]int{true: 1, false: 2}[alone]; most != want {
			t.Errorf("alone=%v: %d calls inside at once, want %d", alone, most, want)
		}
		if alone {
			// c2 began only after c1 ended.
			var order []string
			for _, ev := range env.all(func(ev protocol.Event) bool {
				return ev.Tool != nil && (ev.Type == protocol.EventToolCallBegin || ev.Type == protocol.EventToolCallEnd)
			}) {
				order = append(order, string(ev.Type)+":"+ev.Tool.CallID)
			}
			if len(order) != 4 || order[1] != string(protocol.EventToolCallEnd)+":c1" || order[2] != string(protocol.EventToolCallBegin)+":c2" {
				t.Errorf("events %v: c2 must begin after c1 ends", order)
			}
		}
	}
}
