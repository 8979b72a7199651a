package surface_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/sessions"
	"github.com/grovecli/grove/protocol"
)

// blocker is the prompt of a child that keeps its slot: its model call
// waits until the engine shuts down.
const blocker = "HOLD-THE-SLOT"

// limitModel: the root spawns twice through one surface's tool, then
// stops; children holding blocker never answer.
type limitModel struct {
	first, second model.ToolCallRequest
	mu            sync.Mutex
	outputs       map[string]string
}

func (m *limitModel) Stream(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
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
	switch {
	case m.outputs["second"] != "":
		return model.Response{Text: "done"}, nil
	case m.outputs["first"] != "":
		return model.Response{ToolCalls: []model.ToolCallRequest{m.second}}, nil
	}
	return model.Response{ToolCalls: []model.ToolCallRequest{m.first}}, nil
}

func (m *limitModel) Models(context.Context) ([]model.ModelInfo, error) {
	return nil, model.ErrModelsUnsupported
}

func (m *limitModel) Name() string { return "limit" }

// surfaceTools are each surface's tool names: a surface's messages name
// only its own.
var surfaceTools = map[string][]string{
	surface.Collab: {"spawn_agent", "send_input", "resume_agent", "close_agent", "list_agents", "list_active_agents", "set_thread_note"},
	surface.Task:   {"TaskOutput"},
	inbox.Name:     {"create_subagent", "list_subagents", "check_inbox", "reply_to_subagent", "end_subagent", "notify_parent"},
	sessions.Name:  {"create_session", "wait_session", "cancel_session"},
}

// At agents.max_threads = 1 a second concurrent spawn is refused on every
// surface, and the refusal says how to free a slot with that surface's
// own tools, never another surface's (a Task agent has no close_agent).
func TestMaxThreadsRefusalNamesOnlyTheSurfacesTools(t *testing.T) {
	for _, tc := range []struct {
		surface, tool, args, want string
	}{
		{surface.Collab, "spawn_agent", `{"message":"` + blocker + `"}`, "collab spawn failed: agent thread limit reached (max 1): 1 sub-agents are running or pending (agents.max_threads); wait for one to finish, or close_agent an idle one, to free a slot"},
		{surface.Task, "Task", `{"subagent_type":"Explore","prompt":"` + blocker + `","description":"hold","run_in_background":true}`, "Task: agent thread limit reached (max 1): 1 sub-agents are running or pending (agents.max_threads); wait for a background agent with TaskOutput (block: true) to free a slot, or do this part yourself"},
		{inbox.Name, "create_subagent", `{"task":"` + blocker + `"}`, "create_subagent: agent thread limit reached (max 1): 1 sub-agents are running or pending (agents.max_threads); a slot frees when a sub-agent completes (check_inbox tells you), or end_subagent one you no longer need"},
		{sessions.Name, "create_session", `{"session_type":"default","prompt":"` + blocker + `"}`, "create_session: agent thread limit reached (max 1): 1 sub-agents are running or pending (agents.max_threads); wait_session for one to finish, or cancel_session one you no longer need"},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			m := &limitModel{
				first:   model.ToolCallRequest{CallID: "first", Name: tc.tool, Arguments: tc.args},
				second:  model.ToolCallRequest{CallID: "second", Name: tc.tool, Arguments: tc.args},
				outputs: map[string]string{},
			}
			e, root := startLimited(t, m, tc.surface)
			if err := e.SubmitText(root, "go"); err != nil {
				t.Fatal(err)
			}
			if _, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second); err != nil || timedOut {
				t.Fatalf("root did not finish: %v %v", timedOut, err)
			}
			m.mu.Lock()
			first, second := m.outputs["first"], m.outputs["second"]
			m.mu.Unlock()
			if strings.Contains(first, "limit") || second != tc.want {
				t.Fatalf("first spawn %q\nsecond spawn %q\nwant %q", first, second, tc.want)
			}
			for other, names := range surfaceTools {
				if other == tc.surface {
					continue
				}
				for _, n := range names {
					if strings.Contains(second, n) {
						t.Errorf("the %s surface's refusal names %s's tool %s", tc.surface, other, n)
					}
				}
			}
		})
	}
}

func startLimited(t *testing.T, c model.Client, name string) (*engine.Engine, protocol.ThreadID) {
	t.Helper()
	return startSurface(t, c, name, 1)
}
