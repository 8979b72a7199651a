package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

// TestDiskFullStopsTheTurn: when the rollout cannot be written (a full
// disk) the turn stops before the next model call, as an error that says
// what was not recorded, and the rollout ends on a whole line.
func TestDiskFullStopsTheTurn(t *testing.T) {
	var requests atomic.Int32
	var home string
	s := script{"root": func(_ context.Context, tn turn) (model.Response, error) {
		if requests.Add(1) == 1 {
			if err := rollouttest.FillDisk(home); err != nil { // the disk fills while the model answers
				t.Error(err)
			}
			return calls(toolCall("c1", "no_such_tool", map[string]any{"x": strings.Repeat("y", 2000)})), nil
		}
		return text("this reply must never be asked for"), nil
	}}
	env := newEnv(t, s, func(o *Options) {
		home = o.Home
		rollouttest.MountTmpfs(t, home, "256k")
	})
	env.send("do it")
	st := env.rootFinal(1)
	if st.Kind != protocol.StatusErrored || !strings.Contains(st.Message, "can no longer be recorded") || !strings.Contains(st.Message, "no space left") {
		t.Fatalf("final status %+v, want an error about the record", st)
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("the model was asked %d times; the turn must stop before the next call", n)
	}
	if len(env.e.Unrecorded()) == 0 {
		t.Fatal("Unrecorded() is empty after a failed write")
	}
	// Read once the engine has stopped writing: a line being written (or
	// cut back) is no torn line of the finished file.
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	entry, err := rollout.FindSession(home, string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := rollout.Read(entry.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Warnings) != 0 {
		t.Fatalf("the rollout has torn or unreadable lines: %q", sess.Warnings)
	}
}

// TestDiskFullDuringCompactionStopsTheTurn (issue 36.2): the disk fills
// while the model writes the summary, so the `compacted` line cannot be
// written; the turn stops before the next model call instead of working on
// with a history the rollout does not have.
func TestDiskFullDuringCompactionStopsTheTurn(t *testing.T) {
	p := newCompactingProvider(t)
	var home string
	var filled atomic.Bool
	p.srv.Handle(func(req modeltest.CapturedRequest) modeltest.Reply {
		if isCompactionRequest(req) {
			if err := rollouttest.FillDisk(home); err != nil {
				t.Error(err)
			}
			filled.Store(true)
			return modeltest.Reply{Text: "SUMMARY " + strings.Repeat("s", 8000)}
		}
		if filled.Load() {
			t.Error("a model request after the compacted line failed to be written")
		}
		return modeltest.Reply{Text: "ok", Usage: protocol.TokenUsage{InputTokens: inputTokens(req)}}
	})
	env := newEnv(t, nil, func(o *Options) {
		home = o.Home
		rollouttest.MountTmpfs(t, home, "256k")
		o.Client = p.client(t)
		o.AutoCompactTokenLimit = 500
	})
	// Over the limit: the turn's first step compacts before asking.
	env.send("first " + strings.Repeat("word ", 600))
	st := env.rootFinal(1)
	if st.Kind != protocol.StatusErrored || !strings.Contains(st.Message, "can no longer be recorded") {
		t.Fatalf("final status %+v, want the turn stopped because the compaction was not recorded", st)
	}
	if !filled.Load() {
		t.Fatal("no compaction was requested")
	}
}
