package surface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/sessions"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// orderModel: the root asks for calls in one reply, then stops; children
// holding blocker never answer.
type orderModel struct {
	calls   []model.ToolCallRequest
	mu      sync.Mutex
	outputs map[string]string
}

func (m *orderModel) Stream(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	for _, it := range req.Items {
		if it.Type == protocol.ItemMessage && strings.Contains(it.Content, blocker) {
			<-ctx.Done()
			return model.Response{}, ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, it := range req.Items {
		if it.Type == protocol.ItemFunctionCallOutput {
			m.outputs[it.CallID] = it.Output
		}
	}
	if len(m.outputs) > 0 {
		return model.Response{Text: "done"}, nil
	}
	return model.Response{ToolCalls: m.calls}, nil
}

func (m *orderModel) Models(context.Context) ([]model.ModelInfo, error) {
	return nil, model.ErrModelsUnsupported
}

func (m *orderModel) Name() string { return "order" }

// Every surface's spawns take agents.max_threads' slots in the order the
// model asked for them, on the one path spawn_agent takes: under a limit of
// two, of the five spawns c0…c4 of one reply, c0 fails on its own (so
// gives back the slot it lined up for), c1 and c2 start, c3 and c4 are
// refused. (create_session and create_subagent took their slots as their
// calls happened to reach the engine; which calls get there first is up to
// the scheduler, so TestEverySurfacesSpawningToolIsASpawner pins the cause.)
func TestEverySurfacesSpawnsFollowCallOrder(t *testing.T) {
	const limit = 2
	for _, tc := range []struct {
		surface, tool, bad, good string
	}{
		{surface.Collab, "spawn_agent", `{"agent_type":"no_such_role","message":"x"}`, `{"message":"` + blocker + `"}`},
		{surface.Task, "Task", `{"subagent_type":"NoSuchAgent","prompt":"x","description":"x","run_in_background":true}`, `{"subagent_type":"Explore","prompt":"` + blocker + `","description":"hold","run_in_background":true}`},
		{inbox.Name, "create_subagent", `{"task":" "}`, `{"task":"` + blocker + `"}`},
		{sessions.Name, "create_session", `{"session_type":"no_such_type","prompt":"x"}`, `{"session_type":"default","prompt":"` + blocker + `"}`},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			m := &orderModel{outputs: map[string]string{}}
			for i := range 5 {
				args := tc.good
				if i == 0 {
					args = tc.bad
				}
				m.calls = append(m.calls, model.ToolCallRequest{CallID: fmt.Sprintf("c%d", i), Name: tc.tool, Arguments: args})
			}
			e, root := startSurface(t, m, tc.surface, limit)
			if err := e.SubmitText(root, "go"); err != nil {
				t.Fatal(err)
			}
			if _, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second); err != nil || timedOut {
				t.Fatalf("root did not finish: %v %v", timedOut, err)
			}
			var started []string
			for _, info := range e.Threads() {
				if info.ParentID == root {
					started = append(started, info.SpawnCallID)
				}
			}
			slices.Sort(started)
			if want := []string{"c1", "c2"}; !slices.Equal(started, want) {
				t.Errorf("the spawns of calls %v started, want %v", started, want)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			limitMsg := fmt.Sprintf("agent thread limit reached (max %d)", limit)
			if out := m.outputs["c0"]; out == "" || strings.Contains(out, limitMsg) {
				t.Errorf("c0 = %q, want its own error", out)
			}
			for _, id := range []string{"c3", "c4"} {
				if out := m.outputs[id]; !strings.Contains(out, limitMsg) {
					t.Errorf("%s = %q, want the limit's refusal", id, out)
				}
			}
		})
	}
}

func startSurface(t *testing.T, c model.Client, name string, maxThreads int) (*engine.Engine, protocol.ThreadID) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	e, err := engine.New(context.Background(), engine.Options{
		Home: home, Client: c, Model: "gpt-test", Cwd: cwd, Headless: true, MaxThreads: maxThreads,
		Templates: templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home}, templates.Options{}),
		Surfaces: []engine.SurfaceFactory{surface.CollabFactory, task.Factory(task.Options{}), inbox.New,
			sessions.Factory(sessions.Options{})},
		SelectSurface: surface.Selector(name),
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

// The engine lines up only the calls whose tool says it spawns
// (tools.Spawner): every surface's spawning tool must say so, or its
// spawns race for the slots again.
func TestEverySurfacesSpawningToolIsASpawner(t *testing.T) {
	for _, tc := range []struct {
		factory engine.SurfaceFactory
		tool    string
		args    string
	}{
		{surface.CollabFactory, "spawn_agent", `{"message":"x"}`},
		{task.Factory(task.Options{}), "Task", `{"subagent_type":"Explore","prompt":"x","description":"x"}`},
		{inbox.New, "create_subagent", `{"task":"x"}`},
		{sessions.Factory(sessions.Options{}), "create_session", `{"session_type":"default","prompt":"x"}`},
	} {
		e, _ := startSurface(t, &orderModel{outputs: map[string]string{}}, surface.Collab, 1)
		s, err := tc.factory(e)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, tl := range s.Tools() {
			if tl.Spec().Name != tc.tool {
				continue
			}
			found = true
			if sp, ok := tl.(tools.Spawner); !ok || !sp.SpawnsAgent(json.RawMessage(tc.args)) {
				t.Errorf("%s's %s does not say it spawns (tools.Spawner)", s.Name(), tc.tool)
			}
		}
		if !found {
			t.Errorf("%s has no tool %s", s.Name(), tc.tool)
		}
	}
}
