package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A child the user interrupts ends its parent's wait at once (not at the
// wait's timeout), reported as interrupted with what it had said so far
// (an earlier reply of the turn and the reply cut off mid-stream); a later
// wait on the still-interrupted child returns at once too.
func TestWaitReturnsWhenAWaitedChildIsInterrupted(t *testing.T) {
	sc := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "message": "work"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}, "timeout_ms": 1800000})), nil
			case 2:
				return calls(toolCall("w2", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}, "timeout_ms": 1800000})), nil
			}
			return text("done"), nil
		},
		"worker": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return model.Response{Text: "step one done", ToolCalls: []model.ToolCallRequest{toolCall("l", "list_agents", map[string]any{})}}, nil
			}
			// A long reply streamed slowly: the user interrupts it after
			// "half an answ" has reached the screen.
			return text("half an answ" + strings.Repeat(" x", 100000)), nil
		},
	}
	env := newEnv(t, sc, func(o *Options) {
		o.Client = model.NewScripted("test", sc.fn(), model.WithChunkDelay(time.Millisecond))
	})
	env.send("go")
	env.waitFor("partial reply", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventMessageDelta && strings.Contains(ev.Delta, "answ")
	})
	child := spawnedID(t, env.toolOutput("s").Output)
	env.waitFor("root waiting", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventToolCallBegin && ev.Tool.CallID == "w"
	})
	if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: child}); err != nil {
		t.Fatal(err)
	}
	if st := env.rootFinal(1); st.Message != "done" {
		t.Fatalf("root: %v", st)
	}
	env.waitFor("background event with what the child had said", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventBackground && ev.Background.ChildID == child && ev.Background.Status.Kind == protocol.StatusInterrupted &&
			strings.Contains(ev.Background.Message, "it had said: step one done\n\nhalf an answ")
	})
	for _, id := range []string{"w", "w2"} {
		var w struct {
			Status    map[protocol.ThreadID]protocol.AgentStatus `json:"status"`
			TimedOut  bool                                       `json:"timed_out"`
			SaidSoFar map[protocol.ThreadID]string               `json:"said_so_far"`
		}
		if err := json.Unmarshal([]byte(env.toolOutput(id).Output), &w); err != nil {
			t.Fatal(err)
		}
		if w.TimedOut || w.Status[child].Kind != protocol.StatusInterrupted {
			t.Fatalf("%s: %+v", id, w)
		}
		if got, want := w.SaidSoFar[child], "step one done\n\nhalf an answ"; !strings.HasPrefix(got, want) || len(got) > 100000 {
			t.Fatalf("%s: said_so_far %.80q…, want %q and the few chunks streamed before the interrupt", id, got, want)
		}
	}
}
