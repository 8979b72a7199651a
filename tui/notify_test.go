package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func TestPlainSummary(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"## Root report\n\nAll **tests** pass.", "Root report"},
		{"\n---\n- fixed `parse.go` see [the PR](https://x/y)", "fixed parse.go see the PR"},
		{"> quoted *note*", "quoted *note*"},
		{"agent 0197a3b2-5c1d-7e2f-8a9b-0c1d2e3f4a5b done", "agent " + protocol.ThreadID("0197a3b2-5c1d-7e2f-8a9b-0c1d2e3f4a5b").Short() + " done"},
		{"1. first step", "first step"},
		{"", ""},
	} {
		if got := plainSummary(c.in, 160); got != c.want {
			t.Errorf("plainSummary(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestChildNotice(t *testing.T) {
	if msg, ok := childNotice("explorer", protocol.Completed("## Found\nin parse.go", true)); !ok || msg != "grove: explorer finished: Found" {
		t.Fatalf("%q %v", msg, ok)
	}
	if msg, ok := childNotice("worker", protocol.Errored("HTTP 500")); !ok || msg != "grove: worker failed: HTTP 500" {
		t.Fatalf("%q %v", msg, ok)
	}
	for _, st := range []protocol.AgentStatus{protocol.Shutdown(), protocol.NotFound()} {
		if _, ok := childNotice("explorer", st); ok {
			t.Fatalf("%s notifies as if finished", st.Kind)
		}
	}
}

// TestClosedByParentDoesNotNotify goes through the model.
func TestClosedByParentDoesNotNotify(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m.notifier.getenv = func(string) string { return "" }
	bg := ev(protocol.EventBackground, rootID, 9*time.Second)
	bg.Background = &protocol.BackgroundEvent{ChildID: workerID, Status: protocol.Shutdown(), IsFinal: true, Message: "agent worker closed"}
	for _, c := range m.applyEvents([]protocol.Event{bg}) {
		if c != nil {
			t.Fatal("a closed agent notified")
		}
	}
}

func TestTmuxWithoutPassthroughRingsTheBell(t *testing.T) {
	env := map[string]string{"TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "WezTerm"}
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m.notifier.getenv = func(k string) string { return env[k] }
	if m.notifier.checkPassthrough() == nil {
		t.Fatal("inside tmux with OSC 9 the setting is not checked")
	}
	mm, _ := m.Update(passthroughMsg{off: true})
	m = mm.(Model)
	if seq := m.notifier.sequence("done"); seq != "\x07" {
		t.Fatalf("sequence %q, want BEL", seq)
	}
	if m.flash == "" {
		t.Fatal("the fallback is not explained")
	}
	// Outside tmux nothing is checked.
	delete(env, "TMUX")
	if m.notifier.checkPassthrough() != nil {
		t.Fatal("checked outside tmux")
	}
}

// A whole answer on one line is summarized from its start: the same
// summary as for its first part, whatever follows.
func TestPlainSummaryOfHugeLine(t *testing.T) {
	head := "**Done**: see [the report](https://example.com/r) for 0192e4c1-7a6b-7c3d-8e9f-0a1b2c3d4e5f, é "
	huge := head + strings.Repeat("word é ", 200_000)
	want := plainSummary(head+strings.Repeat("word é ", 100), 160)
	if got := plainSummary(huge, 160); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := cutBytes("aé", 2); got != "a" {
		t.Fatalf("cut inside a character: %q", got)
	}
}

func BenchmarkPlainSummaryLongAnswer(b *testing.B) {
	s := strings.Repeat("word ", 2000)
	for b.Loop() {
		_ = plainSummary(s, 160)
	}
}
