package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// spawnLimit is agents.max_threads in these tests.
const spawnLimit = 5

func workerSpawn(id string) model.ToolCallRequest {
	return toolCall(id, "spawn_agent", map[string]any{"agent_type": "worker", "message": "work"})
}

// eightSpawns is a reply of eight worker spawns s0…s7, call i replaced
// by alt[i] (with its call id kept).
func eightSpawns(alt map[int]model.ToolCallRequest) []model.ToolCallRequest {
	var cs []model.ToolCallRequest
	for i := range 8 {
		id := fmt.Sprintf("s%d", i)
		c, ok := alt[i]
		if !ok {
			c = workerSpawn(id)
		}
		c.CallID = id
		cs = append(cs, c)
	}
	return cs
}

// One reply's spawns take agents.max_threads' slots in the order the model
// asked for them: with eight spawns under a limit of five, calls 1–5 start
// and 6–8 are refused, every time (the calls raced for the slots, so a
// random three were refused).
func TestSpawnSlotsFollowCallOrder(t *testing.T) {
	sp := runSpawnLine(t, eightSpawns(nil), nil, nil)
	sp.expect(t, []string{"s0", "s1", "s2", "s3", "s4"}, []string{"s5", "s6", "s7", "x0", "x1"}, nil)
}

// A spawn that fails for another reason gives back the slot it reserved
// in call order, and the reply's first call refused only for lack of a
// slot gets it: s5 starts exactly as if the failed call had never taken a
// slot, and the next reply's spawns are refused (no slot leaked, none
// given back twice). The failure comes before the reservation (an unknown
// agent_type, arguments that do not decode) or after it (the child's
// rollout cannot be created: a surface's spawn gave it a taken id).
func TestSpawnSlotGivenBackByFailedSpawnGoesToTheReplysNextSpawn(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  model.ToolCallRequest
		want string // the failed call's own error
	}{
		{"unknown agent_type", toolCall("", "spawn_agent", map[string]any{"agent_type": "no_such_role", "message": "work"}), "no_such_role"},
		{"bad arguments", model.ToolCallRequest{Name: "spawn_agent", Arguments: `{"message": 7}`}, "invalid"},
		{"fails after reservation", toolCall("", childToolName, map[string]any{"prompt": "work", "root_id": true}), "create rollout"},
	} {
		for _, at := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s at s%d", tc.name, at), func(t *testing.T) {
				sp := runSpawnLine(t, eightSpawns(map[int]model.ToolCallRequest{at: tc.bad}), registerChildTool, nil)
				bad := fmt.Sprintf("s%d", at)
				var started []string
				for i := range 6 {
					if id := fmt.Sprintf("s%d", i); id != bad {
						started = append(started, id)
					}
				}
				sp.expect(t, started, []string{"s6", "s7", "x0", "x1"}, map[string]string{bad: tc.want})
			})
		}
	}
}

// A held slot given back late still goes to the reply's first waiting
// call: s0 waits for the user's approval of its working directory while
// s1…s4 start; s5…s7 are not refused while s0 could still give its slot
// back. The user denies, and s5 starts.
func TestSpawnSlotGivenBackLateGoesToTheReplysNextSpawn(t *testing.T) {
	sub := toolCall("", "spawn_agent", map[string]any{"agent_type": "worker", "message": "work", "working_directory": "sub"})
	sp := runSpawnLine(t, eightSpawns(map[int]model.ToolCallRequest{0: sub}), nil, func(env *testEnv) {
		ev := env.waitFor("workdir approval", func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
		for _, id := range []string{"s1", "s2", "s3", "s4"} {
			if out := env.toolOutput(id); out.IsError {
				t.Fatalf("%s did not start: %s", id, out.Output)
			}
		}
		// s0 still holds its slot: the calls behind it are undecided.
		for _, id := range []string{"s5", "s6", "s7"} {
			if ended := env.all(func(ev protocol.Event) bool {
				return ev.Type == protocol.EventToolCallEnd && ev.Tool.CallID == id
			}); len(ended) > 0 {
				t.Fatalf("%s was answered while s0 held a slot: %s", id, ended[0].Tool.Output)
			}
		}
		if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: protocol.DecisionDenied}); err != nil {
			t.Fatal(err)
		}
	})
	sp.expect(t, []string{"s1", "s2", "s3", "s4", "s5"}, []string{"s6", "s7", "x0", "x1"}, map[string]string{"s0": "denied"})
}

// A surface's own spawn (SpawnChild, as create_session, create_subagent
// and Task call it) lines up in the same call order as spawn_agent.
func TestSurfaceSpawnsFollowCallOrder(t *testing.T) {
	var cs []model.ToolCallRequest
	for i := range 8 {
		cs = append(cs, toolCall(fmt.Sprintf("s%d", i), childToolName, map[string]any{"prompt": "work"}))
	}
	sp := runSpawnLine(t, cs, registerChildTool, nil)
	sp.expect(t, []string{"s0", "s1", "s2", "s3", "s4"}, []string{"s5", "s6", "s7", "x0", "x1"}, nil)
}

// spawnLine is a root that asked for its first reply's calls and then two
// more worker spawns x0 and x1, under agents.max_threads = spawnLimit; the
// children keep running, each holding its slot.
type spawnLine struct{ env *testEnv }

// runSpawnLine runs it to the end of the root's turn; setup runs before
// the turn, during after it was sent.
func runSpawnLine(t *testing.T, first []model.ToolCallRequest, setup, during func(*testEnv)) spawnLine {
	t.Helper()
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(first...), nil
			case 1:
				return calls(workerSpawn("x0"), workerSpawn("x1")), nil
			}
			return text("spawned"), nil
		},
		"worker": block,
	}, func(o *Options) { o.MaxThreads = spawnLimit })
	if setup != nil {
		setup(env)
	}
	env.send("go")
	if during != nil {
		during(env)
	}
	env.rootFinal(1)
	return spawnLine{env: env}
}

// expect checks which calls started a sub-agent, which were refused for
// the limit and which failed with their own error (a substring).
func (sp spawnLine) expect(t *testing.T, started, refused []string, failed map[string]string) {
	t.Helper()
	for _, id := range started {
		if out := sp.env.toolOutput(id); out.IsError || agentIDFrom(out.Output) == "" {
			t.Errorf("%s did not start: %s", id, out.Output)
		}
	}
	for _, id := range refused {
		if out := sp.env.toolOutput(id); !out.IsError || !strings.Contains(out.Output, fmt.Sprintf("agent thread limit reached (max %d)", spawnLimit)) {
			t.Errorf("%s was not refused for the limit: %s", id, out.Output)
		}
	}
	for id, want := range failed {
		if out := sp.env.toolOutput(id); !out.IsError || strings.Contains(out.Output, "thread limit") || !strings.Contains(out.Output, want) {
			t.Errorf("%s = %q, want its own error (%q)", id, out.Output, want)
		}
	}
	// No slot leaked or given back twice: the limit's children run, and
	// no reservation is left over.
	tr := &sp.env.e.tree
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var running int
	for _, th := range tr.byID {
		if st, _ := th.Status(); th.parentID != "" && st.IsActive() {
			running++
		}
	}
	if running != spawnLimit || tr.reserved != 0 {
		t.Errorf("%d sub-agents running and %d slots reserved, want %d and 0", running, tr.reserved, spawnLimit)
	}
}

// childToolName is a surface's spawning tool: SpawnChild with the call's
// id (root_id: the child gets the root's id, so the spawn fails after its
// slot was reserved, creating the child's rollout).
const childToolName = "spawn_child"

type childTool struct{ e *Engine }

func registerChildTool(env *testEnv) {
	if err := env.e.tools.Register(childTool{e: env.e}); err != nil {
		env.t.Fatal(err)
	}
}

func (childTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: childToolName, Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (childTool) SpawnsAgent(json.RawMessage) bool { return true }

func (c childTool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a struct {
		Prompt string `json:"prompt"`
		RootID bool   `json:"root_id"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Errorf("%s: invalid arguments: %v", childToolName, err)
	}
	spec := ChildSpec{Caller: env.ThreadID, CallID: env.CallID, Prompt: a.Prompt, AgentType: "worker", Instructions: "Work until stopped."}
	if a.RootID {
		root := c.e.tree.rootThread().id
		spec.NewID = func() protocol.ThreadID { return root }
	}
	id, err := c.e.SpawnChild(ctx, spec)
	if err != nil {
		return tools.Errorf("%s: %v", childToolName, err)
	}
	return tools.Result{Output: fmt.Sprintf(`{"agent_id":%q}`, id), AgentIDs: []protocol.ThreadID{id}}
}

// An interrupt while a call waits in line for a slot ends the wait: the
// turn ends, and no slot is left reserved (the waiting call and the one
// holding the slot, stopped at its working-directory approval, both give
// theirs up).
func TestSpawnSlotWaitEndsWithTheTurn(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(
					toolCall("s0", "spawn_agent", map[string]any{"agent_type": "worker", "message": "work", "working_directory": "sub"}),
					workerSpawn("s1"),
				), nil
			}
			return text("done"), nil
		},
		"worker": block,
	}, func(o *Options) { o.MaxThreads = 1 })
	env.send("go")
	env.waitFor("workdir approval", func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
	if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("root ended %v, want interrupted", st)
	}
	tr := &env.e.tree
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.reserved != 0 {
		t.Errorf("%d slots left reserved after the turn ended", tr.reserved)
	}
}
