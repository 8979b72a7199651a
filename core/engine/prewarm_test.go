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

// warmTool records the Prewarm calls it gets.
type warmTool struct {
	mu    sync.Mutex
	envs  []tools.Env
	ready chan struct{}
}

func (w *warmTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "warm_tool", Description: "test", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (w *warmTool) Run(context.Context, *tools.Env, json.RawMessage) tools.Result {
	return tools.Result{Output: "ran"}
}

func (w *warmTool) Prewarm(env *tools.Env) {
	w.mu.Lock()
	w.envs = append(w.envs, *env)
	first := len(w.envs) == 1
	w.mu.Unlock()
	if first {
		close(w.ready)
	}
}

// A root thread's tools are prepared once, when its first turn starts
// (behind the first model request), with the thread's cwd and sandbox.
func TestToolsArePrewarmedOnceAtTheFirstTurn(t *testing.T) {
	w := &warmTool{ready: make(chan struct{})}
	requested := make(chan struct{}, 4)
	env := newEnv(t, script{"root": func(ctx context.Context, tn turn) (model.Response, error) {
		requested <- struct{}{}
		return text("done"), nil
	}}, func(o *Options) { o.PrewarmTools = true })
	if err := env.e.tools.Register(w); err != nil {
		t.Fatal(err)
	}
	env.send("one")
	<-w.ready
	<-requested
	env.rootFinal(1) // rootFinal(0) is the idle root before any turn
	env.send("two")
	<-requested
	env.rootFinal(2)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.envs) != 1 || w.envs[0].Cwd != env.cwd || w.envs[0].Sandbox.Mode != protocol.SandboxDangerFullAccess || w.envs[0].ThreadID != env.root {
		t.Fatalf("prewarm calls %+v", w.envs)
	}
}
