package task

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

// blocking is a model that blocks the first requests of each sub-agent
// until they are cancelled, then answers by script.
type blocking struct {
	*surfacetest.Scripted
	block int // how many requests block
	mu    sync.Mutex
	seen  map[string]int
}

func newBlocking(block int) *blocking {
	return &blocking{Scripted: newScripted(nil), block: block, seen: map[string]int{}}
}

func (b *blocking) Stream(ctx context.Context, req model.Request, d func(model.Delta)) (model.Response, error) {
	role := roleOf(req)
	b.mu.Lock()
	n := b.seen[role]
	b.seen[role]++
	b.mu.Unlock()
	if role != "root" && n < b.block {
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	return b.Scripted.Stream(ctx, req, d)
}

func spawnLimited(t *testing.T, e *engine.Engine, root protocol.ThreadID) protocol.ThreadID {
	t.Helper()
	id, err := e.SpawnChild(context.Background(), engine.ChildSpec{
		Caller: root, Prompt: "slow work", AgentType: "slow", Instructions: "be slow",
		EndTurnTools: []string{"list_dir"},
		Limits: engine.Limits{
			MaxTime: 50 * time.Millisecond, Grace: 50 * time.Millisecond,
			GracePrompt: gracePrompt, GraceTools: []string{"list_dir"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := e.WaitFinal(context.Background(), id, 30*time.Second); err != nil || timedOut {
		t.Fatalf("child did not finish: %v %v", timedOut, err)
	}
	return id
}

func TestTimeLimitStartsTheGraceStep(t *testing.T) {
	b := newBlocking(1)
	b.Reply = func(role string, req model.Request) model.Response {
		if !strings.HasPrefix(lastUser(req), "You have exceeded the time limit. You have one final chance to complete the task.") {
			t.Errorf("grace request without the grace prompt: %q", lastUser(req))
		}
		if names := toolNames(req); len(names) != 1 || names[0] != "list_dir" {
			t.Errorf("grace tools = %v", names)
		}
		return call("g", "list_dir", `{"path":"."}`)
	}
	e, root := start(t, b, setup{})
	id := spawnLimited(t, e, root)
	rep, _ := e.Report(id)
	if rep.LimitHit != engine.LimitTimeout || rep.Steps != 2 || rep.Status.Kind != protocol.StatusCompleted || rep.ToolCalls != 1 {
		t.Errorf("report = %+v", rep)
	}
}

func TestGraceStepTimesOutToo(t *testing.T) {
	b := newBlocking(2)
	b.Reply = func(string, model.Request) model.Response { return model.Response{Text: "unreached"} }
	e, root := start(t, b, setup{})
	id := spawnLimited(t, e, root)
	rep, _ := e.Report(id)
	if rep.LimitHit != engine.LimitTimeout || rep.Steps != 2 || rep.Status.Kind != protocol.StatusCompleted || !rep.InStep {
		t.Errorf("report = %+v", rep)
	}
	// Seed 004 §3.4.2 (clause 004-31): the limit cut the model call, so the
	// run timed out during its turn, and the failed grace step keeps that
	// status and text (§3.6).
	if o := (&Surface{e: e, results: newResults()}).outcome(id); o.Status != StatusTimeout || o.Result != TurnTimedOutText {
		t.Errorf("outcome = %+v, want timeout %q", o, TurnTimedOutText)
	}
}
