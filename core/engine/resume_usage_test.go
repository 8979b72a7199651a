package engine

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A resumed thread counts its tokens on from what its rollout recorded:
// after one more turn the total is the old total plus the new call, never
// the new call alone (issue 35 item 3: 37.3k before quitting, 30.1k after).
func TestResumedThreadKeepsTokenTotals(t *testing.T) {
	s := script{"root": func(_ context.Context, tn turn) (model.Response, error) {
		return model.Response{Text: "ok " + tn.prompt, Usage: protocol.TokenUsage{InputTokens: 1000, OutputTokens: 200, TotalTokens: 1200}}, nil
	}}
	env := newEnv(t, s, nil)
	env.send("one")
	env.rootFinal(1)
	env.send("two")
	env.rootFinal(2)
	env.killKeepingDisk()

	_, env2 := env.resumeInNewEngine()
	env2.send("three")
	ev := env2.waitFor("the resumed turn's usage", func(ev protocol.Event) bool { return ev.Type == protocol.EventTokenUsage })
	if got := ev.TotalUsage.TotalTokens; got != 3600 {
		t.Fatalf("total after resume and one more turn = %d, want 3600 (2400 before + 1200)", got)
	}
	if got := ev.Usage.TotalTokens; got != 1200 {
		t.Fatalf("the call's own usage = %d, want 1200", got)
	}
}
