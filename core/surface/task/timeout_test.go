package task

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// blocking is a model that blocks its first requests until they are cancelled.
type blocking struct {
	scripted
	block int // how many requests block
}

func (b *blocking) Stream(ctx context.Context, req model.Request, d func(model.Delta)) (model.Response, error) {
	b.mu.Lock()
	n := len(b.reqs[roleOf(req)])
	b.mu.Unlock()
	if roleOf(req) != "root" && n < b.block {
		b.mu.Lock()
		if b.reqs == nil {
			b.reqs = map[string][]model.Request{}
		}
		b.reqs[roleOf(req)] = append(b.reqs[roleOf(req)], req)
		b.mu.Unlock()
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	return b.scripted.Stream(ctx, req, d)
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
	b := &blocking{block: 1}
	b.reply = func(role string, req model.Request) model.Response {
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
	b := &blocking{block: 2}
	b.reply = func(string, model.Request) model.Response { return model.Response{Text: "unreached"} }
	e, root := start(t, b, setup{})
	id := spawnLimited(t, e, root)
	rep, _ := e.Report(id)
	if rep.LimitHit != engine.LimitTimeout || rep.Steps != 2 || rep.Status.Kind != protocol.StatusCompleted {
		t.Errorf("report = %+v", rep)
	}
}
