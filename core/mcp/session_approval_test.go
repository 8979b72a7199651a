package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// TestApproveForSessionByApprovalMode drives the real engine and the real
// stdio test server: the model calls write.note (not read-only) twice with
// different arguments, and the user answers the first approval "approve
// for session". Ported from codex-rs/core/src/mcp_tool_call.rs:
// session_mcp_tool_approval_key (only Auto has a key: server and tool
// name, no arguments; maybe_request_mcp_tool_approval reuses it before
// asking) and normalize_approval_decision_for_mode with its test
// prompt_mode_does_not_allow_persistent_remember (Prompt, and Writes in
// the newer Codex, turn AcceptForSession into Accept).
func TestApproveForSessionByApprovalMode(t *testing.T) {
	for _, tc := range []struct {
		mode       config.MCPApprovalMode
		asked      int  // approval requests for the two calls
		noRemember bool // the request's marker
	}{
		{config.MCPApprovalAuto, 1, false},
		{config.MCPApprovalWrites, 2, true},
		{config.MCPApprovalPrompt, 2, true},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			srv := stdioServer("serve")
			srv.DefaultToolsApprovalMode = tc.mode
			asked, resolved, outputs := runTwoNotes(t, srv)
			if len(asked) != tc.asked {
				t.Fatalf("asked %d times, want %d: %+v", len(asked), tc.asked, asked)
			}
			for _, req := range asked {
				want := protocol.MCPToolApproval{Server: "w", Tool: "write.note", NoRemember: tc.noRemember}
				if req.MCP == nil || *req.MCP != want {
					t.Errorf("request marker = %+v, want %+v", req.MCP, want)
				}
				if req.OffersSession() == tc.noRemember {
					t.Errorf("OffersSession = %v under %s", req.OffersSession(), tc.mode)
				}
			}
			// The answer is recorded as what it did: for this call only
			// where nothing is remembered.
			want := protocol.DecisionApprovedForSession
			if tc.noRemember {
				want = protocol.DecisionApproved
			}
			if len(resolved) == 0 || resolved[0] != want {
				t.Errorf("first decision published = %v, want %s", resolved, want)
			}
			if !slices.Equal(outputs, []string{"wrote a", "wrote b"}) {
				t.Errorf("tool outputs = %q, want both notes written", outputs)
			}
		})
	}
}

// runTwoNotes runs one turn whose model calls write.note of server w twice
// (texts a and b), answering the first approval "approve for session" and
// any later one "approve". It returns the requests, the decisions
// published, and the outputs the model saw.
func runTwoNotes(t *testing.T, srv config.MCPServer) (asked []protocol.ApprovalRequest, resolved []protocol.ReviewDecision, outputs []string) {
	t.Helper()
	reg, _ := newRegistry(t, map[string]config.MCPServer{"w": srv})
	tool := sanitizeName(QualifiedName("w", "write.note"))
	var mu sync.Mutex
	script := func(_ context.Context, req model.Request) (model.Response, error) {
		var outs []string
		for _, it := range req.Items {
			if it.Type == protocol.ItemFunctionCallOutput {
				outs = append(outs, it.Output)
			}
		}
		if len(outs) < 2 {
			args, _ := json.Marshal(map[string]string{"text": []string{"a", "b"}[len(outs)]})
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "c" + string(rune('1'+len(outs))), Name: tool, Arguments: string(args)}}}, nil
		}
		mu.Lock()
		outputs = outs
		mu.Unlock()
		return model.Response{Text: "done"}, nil
	}
	base := t.TempDir()
	e, err := engine.New(context.Background(), engine.Options{
		Home: filepath.Join(base, "home"), Cwd: base, Provider: "test", Model: "test-model",
		Client:         model.NewScripted("test", script),
		Sandbox:        protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite},
		ApprovalPolicy: protocol.ApprovalUntrusted,
		Tools:          reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := e.Subscribe()
	t.Cleanup(func() {
		ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
		defer stop()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		cancel()
	})
	root, err := e.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SubmitText(root, "write two notes"); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			switch {
			case ev.Type == protocol.EventApprovalRequested:
				asked = append(asked, *ev.Approval)
				d := protocol.DecisionApproved
				if len(asked) == 1 {
					d = protocol.DecisionApprovedForSession
				}
				if err := e.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: d}); err != nil {
					t.Fatal(err)
				}
			case ev.Type == protocol.EventApprovalResolved:
				resolved = append(resolved, ev.Decision)
			case ev.Type == protocol.EventTurnCompleted && ev.ThreadID == root:
				mu.Lock()
				defer mu.Unlock()
				return asked, resolved, outputs
			}
		case <-timeout:
			t.Fatalf("the turn did not complete; asked %d times", len(asked))
		}
	}
}
