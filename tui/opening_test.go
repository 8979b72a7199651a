package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/grovecli/grove/protocol"
)

// gatedBackend holds the session's replay (History is read just before a
// thread is rebuilt) until the test has seen the opening screen.
type gatedBackend struct {
	*fakeBackend
	gate chan struct{}
}

func (g *gatedBackend) History(id protocol.ThreadID) []protocol.Item {
	<-g.gate
	return g.fakeBackend.History(id)
}

// largeSession is a root whose rollout holds n events: turns of a user
// message, a command and a reply, then the turn's end.
func largeSession(t *testing.T, n int) protocol.ThreadInfo {
	t.Helper()
	evs := make([]protocol.Event, 0, n)
	for i := 0; len(evs) < n; i++ {
		call := fmt.Sprintf("c%d", i)
		cmd := fmt.Sprintf(`{"cmd":"go test ./pkg/%d"}`, i)
		for _, e := range []protocol.Event{
			userMsg(rootID, fmt.Sprintf("turn %d: run the tests", i)),
			toolBegin(rootID, call, "exec_command", cmd),
			toolEnd(rootID, call, "exec_command", cmd, fmt.Sprintf("Exit code: 0\nOutput:\nok pkg/%d", i)),
			message(rootID, fmt.Sprintf("Turn %d passed.", i)),
		} {
			e.Timestamp = t0.Add(time.Duration(len(evs)) * time.Millisecond)
			evs = append(evs, e)
		}
	}
	info := rootInfo()
	info.RolloutPath = writeRollout(t, evs...)
	return info
}

// TestOpeningLargeSessionKeepsUIResponsive: a session of 20,000 recorded
// events is rebuilt in the command that opens it, so the program's first
// frame (the opening screen) is drawn while the replay has not even
// started, and the screen it ends on equals the one the synchronous
// rebuild (NewModel) gives.
func TestOpeningLargeSessionKeepsUIResponsive(t *testing.T) {
	info := largeSession(t, 20_000)
	c := &clock{t: t0.Add(time.Hour)}
	gb := &gatedBackend{fakeBackend: newFake(info), gate: make(chan struct{})}
	tm := teatest.NewTestModel(t, newModel(Options{Backend: gb, Now: c.now}, true), teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "rebuilding its transcript") },
		teatest.WithDuration(60*time.Second))
	// Keys work meanwhile: a draft typed now survives the swap.
	tm.Type("still typing")
	close(gb.gate)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "Turn 4999 passed.") },
		teatest.WithDuration(60*time.Second))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(60*time.Second)).(Model)
	final.unsub()
	if got := final.composer.Value(); got != "still typing" {
		t.Errorf("draft typed during the replay: %q", got)
	}
	final.composer.SetValue("")

	start := time.Now()
	sync, _ := newTestModel(t, 100, 30, newFake(info))
	t.Logf("synchronous rebuild of 20,000 events: %v", time.Since(start))
	sync.unsub()
	if got, want := screen(final), screen(sync); got != want {
		t.Fatalf("opened screen differs from the synchronous rebuild:\ngot:\n%s\nwant:\n%s", got, want)
	}
}
