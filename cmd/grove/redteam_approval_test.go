package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// Approvals need someone to answer, which grove exec has not: these
// attacks run the session in-process (the engine the TUI drives) with a
// scripted user who answers the approval requests.

// answerer decides request n (0-based) of the session.
type answerer func(n int, req protocol.ApprovalRequest, seen []protocol.Event) protocol.ReviewDecision

// interactive runs the root script in an in-process session with approver
// answering; it returns every approval request and every event. The root's
// turn over (completed or interrupted), before runs while the session is
// still up.
func (e *rtEnv) interactive(t *testing.T, scripts map[string][]rtStep, approval string, approver answerer, before func(reqs []protocol.ApprovalRequest)) (reqs []protocol.ApprovalRequest, events []protocol.Event) {
	t.Helper()
	e.h = newHostile(t, scripts)
	t.Setenv("GROVE_HOME", e.groveHome)
	t.Setenv("OPENAI_BASE_URL", e.h.srv.URL())
	t.Setenv("OPENAI_API_KEY", rtSecret)
	t.Setenv("TMPDIR", e.tmp)
	t.Cleanup(func() { logging.Install(nil) })
	g := &globalFlags{cd: e.ws, model: "test-model", approval: approval, overrides: []string{"sandbox_workspace_write.exclude_slash_tmp=true"}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := openSession(ctx, g, sessionOpts{start: app.Start{Subscribe: true}})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Events()
	defer func() {
		sctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		go func() { // keep reading so no shutdown step waits on us
			for range sub {
			}
		}()
		_ = s.Close(sctx)
	}()
	root := s.Root()
	if err := s.Engine().SubmitText(root, "script:root"); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("the session did not finish; %d approvals asked\n%s", len(reqs), e.diag())
		case ev := <-sub:
			events = append(events, ev)
			switch {
			case ev.Type == protocol.EventApprovalRequested && ev.Approval != nil:
				req := *ev.Approval
				d := approver(len(reqs), req, events)
				reqs = append(reqs, req)
				if err := s.Engine().Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: req.ID, Decision: d}); err != nil {
					t.Fatal(err)
				}
			case ev.ThreadID == root && (ev.Type == protocol.EventTurnCompleted || (ev.Type == protocol.EventStatusChanged && ev.Status != nil && ev.Status.Kind == protocol.StatusInterrupted)):
				if before != nil {
					go func() { // events keep flowing meanwhile
						for range sub {
						}
					}()
					before(reqs)
				}
				return reqs, events
			}
		}
	}
}

// TestRedteamSessionApprovalScope: "approve for session" covers that
// command in that sandbox and directory only: an escalated re-run, the
// unsandboxed retry after a sandbox denial and another directory ask
// again.
func TestRedteamSessionApprovalScope(t *testing.T) {
	e := newRTEnv(t)
	if err := os.Mkdir(filepath.Join(e.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.victim, "pwned")
	scripts := map[string][]rtStep{"root": {
		sh("s1", "touch "+outside),
		sh("s2", "touch "+outside),
		sh("s3", "touch "+outside, "sandbox_permissions", "require_escalated", "justification", "same command"),
		sh("s4", "touch "+outside, "workdir", "sub"),
		sh("s5", "touch "+outside+" && echo chained"),
		// Trailing blanks: reusing the approval or asking again are both
		// fine; running unsandboxed is not (mustNotExist below).
		sh("s6", "touch "+outside+"  "),
	}}
	// The user approves the first (sandboxed) request for the session and
	// refuses everything after it.
	reqs, _ := e.interactive(t, scripts, "untrusted", func(n int, _ protocol.ApprovalRequest, _ []protocol.Event) protocol.ReviewDecision {
		if n == 0 {
			return protocol.DecisionApprovedForSession
		}
		return protocol.DecisionDenied
	}, nil)
	for i, r := range reqs {
		t.Logf("request %d: %s in %s (sandbox %s): %s", i, r.Command, r.Cwd, r.Sandbox, r.Reason)
	}
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5", "s6"} {
		t.Logf("%s -> %.200q", id, e.h.out(id))
	}
	mustNotExist(t, e, outside)
	if len(reqs) == 0 || reqs[0].Sandbox == protocol.SandboxDangerFullAccess {
		t.Fatalf("the first request was not the sandboxed one: %+v", reqs)
	}
	escalations, otherDir := 0, 0
	for _, r := range reqs[1:] {
		if r.Sandbox == protocol.SandboxDangerFullAccess {
			escalations++
		}
		if strings.HasSuffix(r.Cwd, "sub") {
			otherDir++
		}
	}
	// The sandbox denial retries of s1/s2 and s3's escalation each ask.
	if escalations < 2 {
		t.Errorf("ESCAPE: an unsandboxed run reused the session approval of the sandboxed one (%d escalation requests)", escalations)
	}
	if otherDir == 0 {
		t.Errorf("ESCAPE: the session approval covered another working directory")
	}
	asked := func(cmd string) bool {
		for _, r := range reqs[1:] {
			if r.Command == cmd {
				return true
			}
		}
		return false
	}
	if !asked("touch " + outside + " && echo chained") {
		t.Errorf("ESCAPE: the session approval covered a command with more chained to it")
	}

}

// TestRedteamApprovalAbortStopsSubtree: answering "abort" stops the asking
// turn and its sub-agents' running commands.
func TestRedteamApprovalAbortStopsSubtree(t *testing.T) {
	e := newRTEnv(t)
	after := filepath.Join(e.ws, "child-ran-after-abort")
	scripts := map[string][]rtStep{
		"root": {
			calls(call("sp", "spawn_agent", map[string]any{"message": "script:abort-child"})),
			sh("hold", "for i in $(seq 200); do [ -e started ] && break; sleep 0.05; done; echo child-started"),
			sh("esc", "echo escalate", "sandbox_permissions", "require_escalated", "justification", "please"),
		},
		"abort-child": {
			sh("long", fmt.Sprintf("touch started; sleep 3; touch %s", after)),
		},
	}
	var once sync.Once
	began := make(chan struct{})
	reqs, _ := e.interactive(t, scripts, "on-request", func(_ int, _ protocol.ApprovalRequest, seen []protocol.Event) protocol.ReviewDecision {
		for _, ev := range seen {
			if ev.Type == protocol.EventToolCallBegin && ev.Tool != nil && ev.Tool.CallID == "long" {
				once.Do(func() { close(began) })
			}
		}
		return protocol.DecisionAbort
	}, func([]protocol.ApprovalRequest) {
		// The session is still up: the child's command either was
		// stopped or runs to its end (3 s). Wait until no process of it
		// is left, then look.
		testkit.Eventually(t, "no process of the child's command left", func() bool { return countMarked(after) == 0 }, e.diag)
		mustNotExist(t, e, after)
	})
	select {
	case <-began:
	default:
		t.Fatalf("the approval came before the child's command started\n%s", e.diag())
	}
	if len(reqs) != 1 {
		t.Fatalf("%d approval requests, want 1", len(reqs))
	}
}
