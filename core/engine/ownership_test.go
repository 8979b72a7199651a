package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A sub-agent may steer only itself and its descendants: interrupting the
// root, hijacking a sibling's turn, resuming or re-noting a sibling and
// waiting on an ancestor or sibling are refused; its own child is fine.
func TestSubAgentCannotSteerAncestorsOrSiblings(t *testing.T) {
	var rootID protocol.ThreadID
	sibling := make(chan string, 1)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("sib", "spawn_agent", map[string]any{"agent_type": "worker", "message": "stay busy"})), nil
			case 1:
				sibling <- agentIDFrom(tn.output("sib"))
				return calls(toolCall("att", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "attack"})), nil
			case 2:
				return calls(
					toolCall("wa", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("att"))}}),
					toolCall("wself", "wait", map[string]any{"ids": []string{string(rootID)}}),
				), nil
			}
			return text("root done"), nil
		},
		"worker": block,
		"explorer": func(_ context.Context, tn turn) (model.Response, error) {
			return text("grandchild got: " + tn.prompt), nil
		},
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				sib := <-sibling
				root := string(rootID)
				return calls(
					toolCall("x-int-root", "send_input", map[string]any{"id": root, "message": "hijack", "interrupt": true}),
					toolCall("x-send-sib", "send_input", map[string]any{"target": sib, "message": "hijack", "interrupt": true}),
					toolCall("x-resume-sib", "resume_agent", map[string]any{"id": sib}),
					toolCall("x-note-sib", "set_thread_note", map[string]any{"id": sib, "note": "pwned"}),
					toolCall("x-note-root", "set_thread_note", map[string]any{"id": root, "note": "pwned"}),
					toolCall("x-wait-root", "wait", map[string]any{"ids": []string{root}}),
					toolCall("x-wait-sib", "wait", map[string]any{"targets": []string{sib}}),
					toolCall("g", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "first"}),
				), nil
			case 1:
				g := agentIDFrom(tn.output("g"))
				return calls(
					toolCall("ok-wait-g", "wait", map[string]any{"ids": []string{g}}),
					toolCall("ok-note-g", "set_thread_note", map[string]any{"id": g, "note": "mine"}),
				), nil
			case 2:
				return calls(toolCall("ok-send-g", "send_input", map[string]any{"id": agentIDFrom(tn.output("g")), "message": "second"})), nil
			}
			return text("attacks finished"), nil
		},
	}, nil)
	rootID = env.root
	env.send("go")
	if st := env.rootFinal(1); st.Kind != protocol.StatusCompleted || st.Message != "root done" {
		t.Fatalf("the root's turn was disturbed: %+v", st)
	}
	for id, want := range map[string]string{
		"x-int-root":   "send_input refused",
		"x-send-sib":   "send_input refused",
		"x-resume-sib": "resume_agent refused",
		"x-note-sib":   "set_thread_note refused",
		"x-note-root":  "set_thread_note refused",
		"x-wait-root":  "not one of this agent's descendants",
		"x-wait-sib":   "not one of this agent's descendants",
		"wself":        "is this agent itself",
	} {
		if out := env.toolOutput(id); !out.IsError || !strings.Contains(out.Output, want) {
			t.Errorf("%s: want a tool error containing %q, got %+v", id, want, out)
		}
	}
	for _, id := range []string{"ok-wait-g", "ok-note-g", "ok-send-g", "wa"} {
		if out := env.toolOutput(id); out.IsError {
			t.Errorf("%s on an own descendant was refused: %s", id, out.Output)
		}
	}
	sib := spawnedID(t, env.toolOutput("sib").Output)
	if st := statusOf(t, env.e, sib); st.Kind != protocol.StatusRunning {
		t.Fatalf("sibling's turn was disturbed: %v", st)
	}
	for _, id := range []protocol.ThreadID{env.root, sib} {
		info := env.e.thread(id).info()
		if info.Note == "pwned" {
			t.Fatalf("%s note was overwritten", id)
		}
		for _, it := range env.e.History(id) {
			if strings.Contains(it.Content, "hijack") {
				t.Fatalf("%s history holds the hijack message: %+v", id, it)
			}
		}
	}
	if n := len(env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventTurnStarted && ev.ThreadID == env.root
	})); n != 1 {
		t.Fatalf("root ran %d turns, want 1 (no hijacked turn)", n)
	}
}

// Messages one agent sends another (spawn_agent's task, send_input) are
// labelled with the sender in history, rollout, events and the model's
// view; they are never user messages.
func TestInterAgentMessagesAreLabelledWithTheSender(t *testing.T) {
	froms := make(chan string, 4)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "message": "task one"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			case 2:
				return calls(toolCall("in", "send_input", map[string]any{"id": agentIDFrom(tn.output("s")), "message": "task two"})), nil
			case 3:
				return calls(toolCall("w2", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			}
			return text("done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			froms <- tn.from
			return text("did " + tn.prompt), nil
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	child := spawnedID(t, env.toolOutput("s").Output)
	for range 2 {
		if f := <-froms; !strings.Contains(f, "your parent agent root ("+string(env.root)+")") || !strings.Contains(f, "not from the user") {
			t.Fatalf("the model was not told who sent the message: %q", f)
		}
	}
	if !strings.Contains(env.toolOutput("w2").Output, "did task two") {
		t.Fatalf("second task: %s", env.toolOutput("w2").Output)
	}
	var agentMsgs int
	for _, it := range env.e.History(child) {
		if it.Type != protocol.ItemMessage || it.Role == protocol.RoleAssistant {
			continue
		}
		if it.Role != protocol.RoleAgent || it.From != env.root {
			t.Fatalf("child history item %+v is not labelled as from the root", it)
		}
		agentMsgs++
	}
	if agentMsgs != 2 {
		t.Fatalf("child history has %d agent messages, want 2", agentMsgs)
	}
	if n := len(env.all(func(ev protocol.Event) bool { return ev.ThreadID == child && ev.Type == protocol.EventUserMessage })); n != 0 {
		t.Fatalf("%d user_message events on the child", n)
	}
	if n := len(env.all(func(ev protocol.Event) bool {
		return ev.ThreadID == child && ev.Type == protocol.EventAgentInput && ev.From == env.root
	})); n != 2 {
		t.Fatalf("%d agent_input events from the root on the child, want 2", n)
	}
	// The rollout stores the sender too (a resumed child keeps the label).
	env.e.thread(child).flush()
	sess, err := rollout.Read(env.e.thread(child).info().RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range sess.Items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			b, _ := json.Marshal(it)
			t.Fatalf("child rollout stores an agent's message as the user's: %s", b)
		}
	}
}

// A sub-agent cannot reopen a closed sibling with resume_agent; the root
// can.
func TestSubAgentCannotResumeAClosedSibling(t *testing.T) {
	closedID := make(chan string, 1)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("a", "spawn_agent", map[string]any{"agent_type": "worker", "message": "quick"})), nil
			case 1:
				return calls(toolCall("wa", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("a"))}})), nil
			case 2:
				return calls(toolCall("ca", "close_agent", map[string]any{"id": agentIDFrom(tn.output("a"))})), nil
			case 3:
				closedID <- agentIDFrom(tn.output("a"))
				return calls(toolCall("b", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "reopen it"})), nil
			case 4:
				return calls(toolCall("wb", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("b"))}})), nil
			case 5:
				return calls(toolCall("root-resume", "resume_agent", map[string]any{"id": agentIDFrom(tn.output("a"))})), nil
			}
			return text("done"), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("quick answer"), nil },
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("x", "resume_agent", map[string]any{"id": <-closedID})), nil
			}
			return text("tried"), nil
		},
	}, nil)
	env.send("go")
	env.waitFor("sibling's resume attempt", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventToolCallEnd && ev.Tool.CallID == "x"
	})
	if out := env.toolOutput("x"); !out.IsError || !strings.Contains(out.Output, "resume_agent refused") {
		t.Fatalf("sibling resume: %+v", out)
	}
	env.rootFinal(1)
	// A's only reopening is the root's, after the sibling's attempt.
	a := spawnedID(t, env.toolOutput("a").Output)
	evs := env.all(func(ev protocol.Event) bool {
		return ev.ThreadID == a && ev.Type == protocol.EventStatusChanged || ev.Type == protocol.EventToolCallBegin && ev.Tool.CallID == "root-resume"
	})
	shut := false
	for _, ev := range evs {
		switch {
		case ev.Type == protocol.EventToolCallBegin:
			shut = false // the root's resume may reopen it from here on
		case ev.Status.Kind == protocol.StatusShutdown:
			shut = true
		case shut:
			t.Fatalf("closed sibling was reopened before the root resumed it: %v", *ev.Status)
		}
	}
	if out := env.toolOutput("root-resume"); out.IsError {
		t.Fatalf("the root may resume any agent: %s", out.Output)
	}
}
