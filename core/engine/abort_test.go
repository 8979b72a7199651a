package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Answering an approval with abort stops the asking turn's whole subtree:
// the child it spawned and that child's own child are interrupted too.
func TestApprovalAbortInterruptsTheAskingSubtree(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "delegate"})), nil
			case 1:
				return calls(toolCall("x", "exec_command", map[string]any{"cmd": "touch needs-approval"})), nil
			}
			return text("should not continue"), nil
		},
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("g", "spawn_agent", map[string]any{"agent_type": "worker", "message": "work"})), nil
			case 1:
				return calls(toolCall("wg", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("g"))}, "timeout_ms": 1800000})), nil
			}
			return text("orchestrator finished"), nil
		},
		"worker": block,
	}, func(o *Options) { o.ApprovalPolicy = protocol.ApprovalUntrusted })
	env.send("go")
	grand := env.waitFor("grandchild running", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusRunning && ev.ThreadID != env.root && env.e.thread(ev.ThreadID).depth == 2
	}).ThreadID
	ask := env.waitFor("approval", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventApprovalRequested && ev.ThreadID == env.root
	})
	if err := env.e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ask.Approval.ID, Decision: protocol.DecisionAbort}); err != nil {
		t.Fatal(err)
	}
	if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("root after abort: %v", st)
	}
	child := spawnedID(t, env.toolOutput("s").Output)
	for _, id := range []protocol.ThreadID{child, grand} {
		env.waitFor("interrupted "+string(id), func(ev protocol.Event) bool {
			return ev.ThreadID == id && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusInterrupted
		})
	}
}

// An interrupt that lands before a turn has taken its queued input stops
// the agent: the queued input does not start another turn on its own; it
// is answered, with the next input, once someone delivers more.
func TestInterruptBeforeInputIsTakenStopsTheAgent(t *testing.T) {
	prompts := make(chan []string, 4)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			var users []string
			for _, it := range tn.req.Items {
				if it.Role == protocol.RoleUser && !it.IsTurnAbortedNotice() {
					users = append(users, it.Content)
				}
			}
			prompts <- users
			return text("ack " + strings.Join(users, "+")), nil
		},
	}, nil)
	root := env.e.thread(env.root)
	var once sync.Once
	testHookBeforeTakeInput = func(th *Thread) {
		if th == root {
			once.Do(func() { env.e.interruptTree(th) })
		}
	}
	t.Cleanup(func() { testHookBeforeTakeInput = nil })
	env.send("first")
	if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("interrupted before taking its input, the root went on: %v", st)
	}
	// Stopped before a step began: seed 004's loop-top cancellation
	// (`Subagent execution was cancelled`, clause 004-31), not mid-step.
	if rep, _ := env.e.Report(env.root); rep.InStep {
		t.Errorf("an interrupt before the first step reported as mid-step: %+v", rep)
	}
	env.send("second")
	if st := env.rootFinal(2); st.Message != "ack first+second" {
		t.Fatalf("after new input: %v", st)
	}
	if got := <-prompts; strings.Join(got, "+") != "first+second" {
		t.Fatalf("the model's first request had %q: the interrupted input ran on its own", got)
	}
}
