package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

func TestTurnRunsToolsAndCompletes(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("c1", "exec_command", map[string]any{"cmd": "echo one"}),
					toolCall("c2", "exec_command", map[string]any{"cmd": "echo two"}),
				), nil
			}
			return text("saw " + strings.TrimSpace(lastLine(tn.output("c1"))) + "+" + strings.TrimSpace(lastLine(tn.output("c2")))), nil
		},
	}, nil)
	env.send("go")
	st := env.rootFinal(1)
	if st.Kind != protocol.StatusCompleted || st.Message != "saw one+two" {
		t.Fatalf("final status %+v", st)
	}
	// History holds call and output items in order, and the rollout too.
	h := env.e.History(env.root)
	var kinds []string
	for _, it := range h {
		kinds = append(kinds, string(it.Type))
	}
	want := "message function_call function_call function_call_output function_call_output message"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("history %s, want %s", got, want)
	}
	path := env.e.Threads()[0].RolloutPath
	sess, err := rollout.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Items) != len(h) {
		t.Fatalf("rollout has %d items, history %d", len(sess.Items), len(h))
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func TestModelErrorEndsTurnErroredAndSessionStaysUsable(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if n.Add(1) == 1 {
				return model.Response{}, errors.New("model provider test (http://x/v1): HTTP 500 after 5 attempt(s): boom")
			}
			return text("recovered"), nil
		},
	}, nil)
	env.send("first")
	st := env.rootFinal(1)
	if st.Kind != protocol.StatusErrored || !strings.Contains(st.Message, "HTTP 500") {
		t.Fatalf("want errored with the cause, got %+v", st)
	}
	env.waitFor("error event", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventError && strings.Contains(ev.Message, "boom")
	})
	env.send("again")
	if st := env.rootFinal(2); st.Kind != protocol.StatusCompleted || st.Message != "recovered" {
		t.Fatalf("second turn %+v", st)
	}
}

func TestMalformedToolArgumentsBecomeToolErrors(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(
					model.ToolCallRequest{CallID: "bad1", Name: "exec_command", Arguments: `{"cmd": 42}`},
					model.ToolCallRequest{CallID: "bad2", Name: "spawn_agent", Arguments: `{"message": "x", "items": [{"type":"text","text":"y"}]}`},
					model.ToolCallRequest{CallID: "bad3", Name: "no_such_tool", Arguments: `{}`},
					model.ToolCallRequest{CallID: "bad4", Name: "wait", Arguments: `{"ids": [`},
				), nil
			}
			return text("done"), nil
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	for id, want := range map[string]string{"bad1": "cmd", "bad2": "not both", "bad3": "no_such_tool", "bad4": "JSON"} {
		out := env.toolOutput(id)
		if !out.IsError || !strings.Contains(out.Output, want) {
			t.Errorf("%s: want error mentioning %q, got %+v", id, want, out)
		}
	}
}

func TestBusCoalescesDeltasButKeepsStatuses(t *testing.T) {
	b := newBus(nowFunc())
	ch, cancel := b.Subscribe()
	defer cancel()
	// Nobody reads while we publish: deltas merge, statuses stay.
	for i := 0; i < 1000; i++ {
		b.Publish(protocol.Event{Type: protocol.EventMessageDelta, ThreadID: "a", TurnID: "t", Delta: "x"})
	}
	st := protocol.Running()
	b.Publish(protocol.Event{Type: protocol.EventStatusChanged, ThreadID: "a", Status: &st})
	for i := 0; i < 10; i++ {
		b.Publish(protocol.Event{Type: protocol.EventMessageDelta, ThreadID: "a", TurnID: "t", Delta: "y"})
	}
	text, statuses := "", 0
	for text != strings.Repeat("x", 1000)+strings.Repeat("y", 10) {
		ev := <-ch
		switch ev.Type {
		case protocol.EventMessageDelta:
			text += ev.Delta
		case protocol.EventStatusChanged:
			statuses++
			if !strings.HasSuffix(text, "x") || strings.Contains(text, "y") {
				t.Fatalf("status out of order after %q", text)
			}
		}
	}
	if statuses != 1 {
		t.Fatalf("statuses %d", statuses)
	}
	b.Close()
}
