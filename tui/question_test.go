package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func questionEvent(id string, at time.Duration) protocol.Event {
	e := ev(protocol.EventUserInputRequested, rootID, at)
	e.UserInput = &protocol.UserInputRequest{ID: id, ThreadID: rootID, CallID: "call-" + id, Questions: []protocol.UserInputQuestion{
		{ID: "db", Header: "Database", Question: "Which database\x1b]0;pwned\x07 should I use?", IsOther: true, Options: []protocol.UserInputOption{
			{Label: "Postgres (Recommended)", Description: "Matches production."},
			{Label: "SQLite", Description: "No server to run."},
		}},
		{ID: "orm", Header: "ORM", Question: "Use an ORM?", IsOther: true, Options: []protocol.UserInputOption{{Label: "Yes", Description: "Less SQL."}, {Label: "No", Description: "Plain SQL."}}},
	}}
	return e
}

func userInputOps(fb *fakeBackend) []protocol.Op {
	var out []protocol.Op
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpUserInput {
			out = append(out, op)
		}
	}
	return out
}

// The card shows the questions (the model's escape sequences removed);
// tab then a digit answers the first, a typed answer the second, and both
// go to the engine in one OpUserInput.
func TestQuestionCardAnswers(t *testing.T) {
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 100, 30, fb)
	m = feed(m, questionEvent("q1", 5*time.Second))
	s := screen(m)
	if !strings.Contains(s, "Which database should I use?") || !strings.Contains(s, "2. SQLite") || strings.Contains(s, "pwned") || strings.Contains(s, "\x1b]0;") {
		t.Fatalf("card:\n%s", s)
	}
	c.t = c.t.Add(time.Second) // past the grace
	m, _ = press(m, "tab")
	m = typeAt(m, c, 90*time.Millisecond, "2")
	if !strings.Contains(screen(m), "Use an ORM?") {
		t.Fatalf("second question not shown:\n%s", screen(m))
	}
	m = typeAt(m, c, 90*time.Millisecond, "only for migrations\n")
	ops := userInputOps(fb)
	if len(ops) != 1 || ops[0].UserInputID != "q1" || ops[0].UserInput == nil {
		t.Fatalf("ops = %+v", ops)
	}
	got := ops[0].UserInput.Answers
	if strings.Join(got["db"].Answers, ",") != "SQLite" || strings.Join(got["orm"].Answers, ",") != "only for migrations" {
		t.Fatalf("answers = %+v", got)
	}
	if m.quest.current() != nil || m.composer.Value() != "" {
		t.Fatalf("card still shown or composer kept the answer: %q", m.composer.Value())
	}
}

// Typing never answers by accident: digits typed on an unfocused card go
// to the composer, a draft begun before the card is sent as a message,
// and esc dismisses only once the card has the focus.
func TestQuestionCardTypingNeverAnswers(t *testing.T) {
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 100, 30, fb)
	m = typeAt(m, c, 90*time.Millisecond, "please")
	m = feed(m, questionEvent("q2", 5*time.Second))
	c.t = c.t.Add(time.Second)
	m = typeAt(m, c, 90*time.Millisecond, " go on 1 2\n")
	if ops := userInputOps(fb); len(ops) != 0 {
		t.Fatalf("a draft begun before the card answered it: %+v", ops)
	}
	m = typeAt(m, c, 90*time.Millisecond, "1")
	if ops := userInputOps(fb); len(ops) != 0 || m.composer.Value() != "1" {
		t.Fatalf("a digit on an unfocused card answered it (composer %q)", m.composer.Value())
	}
	m, _ = press(m, "backspace")
	m, _ = press(m, "tab")
	mm, k := press(m, "esc")
	runCmd(k)
	ops := userInputOps(fb)
	if len(ops) != 1 || ops[0].UserInput != nil || mm.quest.current() != nil {
		t.Fatalf("esc did not dismiss: %+v", ops)
	}
}
