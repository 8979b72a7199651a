package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// askRoot calls request_user_input once, then finishes with what the tool
// answered.
func askRoot(_ context.Context, tn turn) (model.Response, error) {
	if out := tn.output("ask-1"); out != "" {
		return text("answer: " + out), nil
	}
	return calls(toolCall("ask-1", "request_user_input", map[string]any{"questions": []any{map[string]any{
		"id": "mode", "header": "Mode", "question": "Which mode?",
		"options": []any{map[string]any{"label": "Fast", "description": "Less checking."}, map[string]any{"label": "Safe", "description": "More checking."}},
	}}})), nil
}

// With someone to ask, the question is published, waits for the answer
// and the model reads it as Codex's JSON; a dismissal tells the model so.
func TestRequestUserInputWaitsForTheAnswer(t *testing.T) {
	env := newEnv(t, script{"root": askRoot}, func(o *Options) { o.Model = "gpt-5.1-codex" })
	for i, answer := range []*protocol.UserInputResponse{
		{Answers: map[string]protocol.UserInputAnswer{"mode": {Answers: []string{"Safe"}}}},
		nil,
	} {
		env.send("go")
		isQuestion := func(ev protocol.Event) bool { return ev.Type == protocol.EventUserInputRequested }
		env.waitFor("question", func(protocol.Event) bool { return len(env.all(isQuestion)) == i+1 })
		req := env.all(isQuestion)[i]
		if q := req.UserInput.Questions; len(q) != 1 || !q[0].IsOther || q[0].Options[1].Label != "Safe" {
			t.Fatalf("question = %+v", req.UserInput)
		}
		if err := env.e.Submit(protocol.Op{Type: protocol.OpUserInput, UserInputID: req.UserInput.ID, UserInput: answer}); err != nil {
			t.Fatal(err)
		}
		if err := env.e.Submit(protocol.Op{Type: protocol.OpUserInput, UserInputID: req.UserInput.ID, UserInput: answer}); err == nil || !strings.Contains(err.Error(), "no pending question") {
			t.Fatalf("second answer: %v", err)
		}
		env.rootFinal(i + 1)
		ends := env.all(func(e protocol.Event) bool { return e.Type == protocol.EventToolCallEnd })
		out := *ends[len(ends)-1].Tool
		want := `{"answers":{"mode":{"answers":["Safe"]}}}`
		if answer == nil {
			want = "request_user_input was cancelled before receiving a response"
		}
		if !strings.Contains(out.Output, want) {
			t.Fatalf("turn %d: model read %q, want %q", i+1, out.Output, want)
		}
	}
}

// grove exec (headless) has nobody to ask: the model is told at once.
func TestRequestUserInputHeadless(t *testing.T) {
	env := newEnv(t, script{"root": askRoot}, func(o *Options) { o.Headless = true })
	env.send("go")
	env.rootFinal(1)
	if out := env.toolOutput("ask-1"); !out.IsError || !strings.Contains(out.Output, "request_user_input is unavailable: no one can answer questions") {
		t.Fatalf("headless answer: %+v", out)
	}
	if n := len(env.all(func(e protocol.Event) bool { return e.Type == protocol.EventUserInputRequested })); n != 0 {
		t.Fatalf("headless published %d questions", n)
	}
}
