package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// requestShape names the conversation items of a model request in order:
// user and assistant messages, the turn_aborted notice, grove's notices.
func requestShape(items []protocol.Item) string {
	var seen []string
	for _, it := range items {
		switch {
		case it.IsTurnAbortedNotice():
			seen = append(seen, "notice")
		case it.IsGroveNotice():
			seen = append(seen, "grove-notice")
		case it.Type == protocol.ItemMessage && it.Role == protocol.RoleAssistant:
			seen = append(seen, "reply:"+it.Content)
		case it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser:
			seen = append(seen, "user:"+it.Content)
		}
	}
	return strings.Join(seen, ",")
}

// lastRequest is the conversation shape of the client's latest request.
func (c *replayingClient) lastRequest() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return requestShape(c.reqs[len(c.reqs)-1].Items)
}

// interruptFirstTurn runs "where is the parser?" into the stalling first
// request and interrupts it.
func interruptFirstTurn(t *testing.T, env *testEnv, c *replayingClient) {
	t.Helper()
	env.send("where is the parser?")
	<-c.streamed
	if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
		t.Fatalf("status %v, want interrupted", st)
	}
}

// continueIn sends text to thread root of engine env2 and waits for its
// first turn there.
func continueIn(t *testing.T, env2 *testEnv, root protocol.ThreadID, text string) {
	t.Helper()
	env2.root = root
	env2.send(text)
	if st := env2.rootFinal(1); st.Message != "ok" {
		t.Fatalf("turn in %s: %v", root, st)
	}
}

// A fork, a resume and a rewind of a session whose last turn was
// interrupted carry the <turn_aborted> notice the interrupt left: it is
// part of the conversation, as Codex's marker is a history item of the
// rollout a fork or resume replays (codex-rs/core/src/tasks/mod.rs
// records it before TurnAborted; thread_manager.rs forks copy the
// rollout). A rewind before the interrupted message drops it with that
// turn.
func TestForkResumeAndRewindKeepTheInterruptNotice(t *testing.T) {
	const interrupted = "user:where is the parser?,reply:The parser lives in,notice"
	c := &replayingClient{stallingClient: stallingClient{streamed: make(chan struct{}, 1)}}
	env := newEnv(t, nil, func(o *Options) { o.Client = c })
	interruptFirstTurn(t, env, c)

	e2, env2 := env.openBeside()
	fork, err := e2.ForkSession(string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	continueIn(t, env2, fork, "go on in the fork")
	if got, want := c.lastRequest(), interrupted+",user:go on in the fork"; !strings.HasSuffix(got, want) {
		t.Errorf("fork's request %s, want it to end %s", got, want)
	}

	env.send("go on")
	env.rootFinal(2)
	e3, env3 := env.openBeside()
	rewound, cut, err := e3.RewindSession(string(env.root), 1)
	if err != nil || cut != "go on" {
		t.Fatalf("rewind: %q, %v", cut, err)
	}
	continueIn(t, env3, rewound, "try again")
	if got, want := c.lastRequest(), interrupted+",user:try again"; !strings.HasSuffix(got, want) {
		t.Errorf("rewind's request %s, want it to end %s", got, want)
	}
	e4, env4 := env.openBeside()
	before, _, err := e4.RewindSession(string(env.root), 2)
	if err != nil {
		t.Fatal(err)
	}
	continueIn(t, env4, before, "start over")
	if got := c.lastRequest(); strings.Contains(got, "notice") || strings.Contains(got, "parser") {
		t.Errorf("a rewind before the interrupted turn kept it: %s", got)
	}

	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, resumed := env.resumeInNewEngine()
	continueIn(t, resumed, env.root, "and now")
	if got, want := c.lastRequest(), interrupted+",user:go on,reply:ok,user:and now"; !strings.HasSuffix(got, want) {
		t.Errorf("resume's request %s, want it to end %s", got, want)
	}
}

// A fork taken while the source is mid-turn closes the copy's open turn
// as an interrupted one, with the same <turn_aborted> notice an interrupt
// leaves (Codex: thread_manager.rs fork_history_from_snapshot,
// ForkSnapshot::Interrupted appends interrupted_turn_history_marker when
// snapshot_turn_state finds the source mid-turn), not grove's crash
// notice (the source is alive); agents.interrupt_message = false leaves
// no notice (Codex's InterruptedTurnHistoryMarker::Disabled).
func TestForkMidTurnLeavesTheInterruptNotice(t *testing.T) {
	for _, off := range []bool{false, true} {
		c := &replayingClient{stallingClient: stallingClient{streamed: make(chan struct{}, 1)}}
		env := newEnv(t, nil, func(o *Options) { o.Client = c; o.NoInterruptMessage = off })
		env.send("where is the parser?")
		<-c.streamed // the source's turn is open
		e2, env2 := env.openBeside()
		fork, err := e2.ForkSession(string(env.root))
		if err != nil {
			t.Fatal(err)
		}
		// The copy's open turn ended as an interrupted one.
		env2.waitFor("the fork interrupted", func(ev protocol.Event) bool {
			return ev.ThreadID == fork && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusInterrupted
		})
		continueIn(t, env2, fork, "go on")
		want := "user:where is the parser?,notice,user:go on"
		if off {
			want = "user:where is the parser?,user:go on"
		}
		if got := c.lastRequest(); !strings.HasSuffix(got, want) || strings.Contains(got, "grove-notice") {
			t.Errorf("interrupt_message off=%v: the fork's request %s, want it to end %s", off, got, want)
		}
		if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
			t.Fatal(err)
		}
		env.rootFinal(1)
	}
}
