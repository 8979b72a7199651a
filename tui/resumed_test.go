package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

func writeRollout(t *testing.T, evs ...protocol.Event) string {
	t.Helper()
	var b strings.Builder
	id := rootID
	if len(evs) > 0 {
		id = evs[0].ThreadID
	}
	meta, _ := json.Marshal(rollout.SessionMeta{ID: id, Timestamp: t0})
	line, _ := json.Marshal(rollout.Line{Timestamp: t0, Type: rollout.TypeSessionMeta, Payload: meta})
	b.Write(append(line, '\n'))
	for _, e := range evs {
		payload, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(rollout.Line{Timestamp: e.Timestamp, Type: rollout.TypeEventMsg, Payload: payload})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestResumedThreadsGetTokensAndHowTheyEnded: a resumed child the engine
// reports as shut down shows its real end, turn time and tokens from its
// rollout's tail.
func TestResumedThreadsGetTokensAndHowTheyEnded(t *testing.T) {
	usage := ev(protocol.EventTokenUsage, explorerID, 8*time.Second)
	usage.TotalUsage = &protocol.TokenUsage{InputTokens: 1200, OutputTokens: 34, TotalTokens: 1234}
	path := writeRollout(t,
		status(explorerID, protocol.Running(), time.Second),
		usage,
		status(explorerID, protocol.Completed("found it", true), 9*time.Second),
		status(explorerID, protocol.Shutdown(), 20*time.Second),
	)
	ex := child(explorerID, "explorer", "", "find the parser", 1, rootID)
	ex.Status, ex.RolloutPath = protocol.Shutdown(), path
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo(), ex))
	m = drive(m, m.scanResumed())
	m.focusThread(explorerID)
	s := screen(m)
	for _, want := range []string{"✓ " + nick(m, explorerID) + " (explorer)", "0:08", "(explorer) ✓ completed, closed", nick(m, explorerID) + " 1.2k · all"} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed screen lacks %q:\n%s", want, s)
		}
	}
}

// TestResumedElapsedIsTheLastTurn: a rollout resumed before (a status
// appended after the shutdown) still times the last real turn.
func TestResumedElapsedIsTheLastTurn(t *testing.T) {
	path := writeRollout(t,
		status(rootID, protocol.Running(), time.Second),
		status(rootID, protocol.Completed("done", true), 8*time.Second),
		status(rootID, protocol.Shutdown(), 20*time.Second),
		status(rootID, protocol.Completed("done", true), 200*time.Second), // reopened later
		status(rootID, protocol.Shutdown(), 300*time.Second),
	)
	msg := scanRollout(rootID, path)
	if msg.status == nil || msg.status.Kind != protocol.StatusCompleted || msg.at.Sub(msg.turnAt) != 7*time.Second {
		t.Fatalf("%+v", msg)
	}
}
