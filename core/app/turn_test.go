package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// openTest opens a session on o and closes it with the test.
func openTest(t *testing.T, o Options) *Session {
	t.Helper()
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s
}

// Configure (the TUI's /model and approval modes, ACP's set_model and
// set_mode) refuses what a turn's settings refuse, with the same words,
// and what only a turn may change; a valid change reaches the engine.
func TestConfigureChecksLikeATurn(t *testing.T) {
	isolate(t)
	s := openTest(t, testOptions(t))
	for _, c := range []struct {
		o    protocol.TurnOverrides
		want string
	}{
		{protocol.TurnOverrides{Model: "m2", ReasoningEffort: "max"}, `turn settings: effort: unknown value "max" (none, minimal, low, medium, high, xhigh)`},
		{protocol.TurnOverrides{ApprovalPolicy: "sometimes"}, `turn settings: approvalPolicy: unknown policy "sometimes" (untrusted, on-request, on-failure, never)`},
		{protocol.TurnOverrides{Cwd: "/tmp"}, "turn settings: cwd: changes only with a turn"},
		{protocol.TurnOverrides{Sandbox: &protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}}, "turn settings: sandbox: changes only with a turn"},
	} {
		err := s.Configure("", c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
		// The same settings on a turn are refused with the same words;
		// what only a turn may change passes a turn's check. (No turn is
		// started: a running turn would refuse the next case's settings
		// for another reason, sooner or later depending on the machine.)
		if strings.Contains(c.want, "changes only with a turn") {
			if cerr := CheckTurnSettings(&c.o); cerr != nil {
				t.Errorf("%+v: a turn refuses it: %v", c.o, cerr)
			}
			continue
		}
		if terr := s.Turn(Turn{Text: "x", Settings: &c.o}); terr == nil || terr.Error() != err.Error() {
			t.Errorf("%+v: Turn says %v, Configure %v", c.o, terr, err)
		}
	}
	if ti, _ := s.Engine().Info(s.Root()); ti.Model != "m" || ti.ReasoningEffort == "max" {
		t.Fatalf("a refused change reached the engine: %+v", ti)
	}
	if err := s.Configure("", protocol.TurnOverrides{Model: "m2", ReasoningEffort: "high", ApprovalPolicy: protocol.ApprovalNever}); err != nil {
		t.Fatal(err)
	}
	if ti, _ := s.Engine().Info(s.Root()); ti.Model != "m2" || ti.ReasoningEffort != "high" {
		t.Fatalf("model and effort not set: %+v", ti)
	}
	if p := s.Engine().ApprovalPolicy(); p != protocol.ApprovalNever {
		t.Fatalf("approval policy %q", p)
	}
}

// A steer joins the running turn: refused on an idle thread (it would
// start a turn nobody asked for) and with settings (the running turn
// keeps its own); on a running turn the model reads it in its next
// request.
func TestSteerJoinsOnlyARunningTurn(t *testing.T) {
	isolate(t)
	o := testOptions(t)
	release := make(chan struct{})
	requests := make(chan model.Request, 4)
	o.Client = model.NewScripted("scripted", func(ctx context.Context, r model.Request) (model.Response, error) {
		requests <- r
		select {
		case <-release:
		case <-ctx.Done():
			return model.Response{}, ctx.Err()
		}
		return model.Response{Text: "ok"}, nil
	})
	s := openTest(t, o)
	err := s.Turn(Turn{Text: "more", Steer: true})
	if err == nil || !strings.Contains(err.Error(), "steer: no turn is running on thread") {
		t.Fatalf("steer on an idle thread: %v", err)
	}
	if err := s.Turn(Turn{Text: "first"}); err != nil {
		t.Fatal(err)
	}
	<-requests // the turn is running
	err = s.Turn(Turn{Text: "more", Steer: true, Settings: &protocol.TurnOverrides{Model: "m2"}})
	if err == nil || !strings.Contains(err.Error(), "turn settings: a steer joins the running turn") {
		t.Fatalf("steer with settings: %v", err)
	}
	if err := s.Turn(Turn{Text: "also this", Steer: true}); err != nil {
		t.Fatal(err)
	}
	close(release)
	testkit.Eventually(t, "the steered input joins the thread's history", func() bool {
		for _, it := range s.Engine().History(s.Root()) {
			if strings.Contains(it.Content, "also this") {
				return true
			}
		}
		return false
	})
}
