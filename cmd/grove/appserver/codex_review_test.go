package appserver

// Cases ported from openai/codex codex-rs/app-server/tests/suite/v2/review.rs
// (review/start), turn_start.rs (processId on commandExecution items) and
// compaction.rs.

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// review.rs review_start_runs_review_turn_and_emits_code_review_item (in
// 0.169's vocabulary: enteredReviewMode, then exitedReviewMode carrying
// the review): the answer's turn is in progress with the review request.
func TestCodexReviewStartRunsReviewTurn(t *testing.T) {
	var log requestLog
	const review = "Prefer Stylize helpers: /tmp/file.rs:10-20"
	f := newFixture(t, log.wrap(func(ctx context.Context, req model.Request) (model.Response, error) {
		return model.Response{Text: review}, nil
	}))
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	title := "Tidy UI colors"
	r := c.result("review/start", map[string]any{"threadId": id, "delivery": "inline",
		"target": map[string]any{"type": "commit", "sha": "1234567deadbeef", "title": title}})
	if r["reviewThreadId"] != id || str(r, "turn", "status") != "inProgress" {
		t.Fatalf("review/start: %v", r)
	}
	turnID := str(r, "turn", "id")
	c.notification("turn/started", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	entered := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "enteredReviewMode" })
	if !strings.Contains(str(entered, "item", "review"), title) {
		t.Fatalf("enteredReviewMode: %v", entered)
	}
	exited := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "exitedReviewMode" })
	if str(exited, "item", "review") != review {
		t.Fatalf("exitedReviewMode: %v", exited)
	}
	tc := c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if str(tc, "turn", "status") != "completed" {
		t.Fatalf("turn/completed: %v", tc)
	}
	if prompt, _ := lastInput(log.last().Items); !strings.Contains(prompt, "1234567deadbeef") || !strings.Contains(prompt, title) {
		t.Fatalf("the model was asked %q", prompt)
	}
}

// review.rs review_start_rejects_empty_base_branch,
// review_start_rejects_empty_commit_sha and
// review_start_rejects_empty_custom_instructions.
func TestCodexReviewStartRejectsEmptyTargets(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	for want, target := range map[string]map[string]any{
		"branch must not be empty":       {"type": "baseBranch", "branch": "   "},
		"sha must not be empty":          {"type": "commit", "sha": "\t"},
		"instructions must not be empty": {"type": "custom", "instructions": "\n\n"},
	} {
		m := c.call("review/start", map[string]any{"threadId": id, "target": target})
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32600) || !strings.Contains(str(e, "message"), want) {
			t.Fatalf("%v: %v", target, m)
		}
	}
}

// turn_start.rs (commandExecution items carry processId, the unified exec
// process the command ran in).
func TestCodexCommandExecutionItemHasProcessID(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "never"}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "write pid")), "turn", "id")
	started := c.notification("item/started", func(p map[string]any) bool { return str(p, "item", "type") == "commandExecution" })
	if v, ok := started["item"].(map[string]any)["processId"]; !ok || v != nil {
		t.Fatalf("item/started processId (null until known): %v", started)
	}
	done := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "commandExecution" })
	if str(done, "item", "processId") == "" {
		t.Fatalf("item/completed has no processId: %v", done)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}

// compaction.rs compaction_emits_item_lifecycle_and_legacy_completion_notification:
// an automatic compaction inside a turn is a contextCompaction item of
// that turn (0.169's name for it), then thread/compacted.
func TestCodexCompactionEmitsItemLifecycleAndLegacyNotification(t *testing.T) {
	f := newFixture(t, func(ctx context.Context, req model.Request) (model.Response, error) {
		prompt, outs := lastInput(req.Items)
		switch {
		case strings.HasPrefix(prompt, "You are performing a CONTEXT CHECKPOINT COMPACTION"):
			return model.Response{Text: "COMPACTED_SUMMARY"}, nil
		case prompt == "trigger compaction" && len(outs) == 0:
			return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-1", "exec_command", map[string]any{"cmd": "echo hi"})},
				Usage: protocol.TokenUsage{InputTokens: 1_000_000, TotalTokens: 1_000_000}}, nil
		}
		return model.Response{Text: "post-compact"}, nil
	})
	f.tune = func(o *engine.Options) { o.AutoCompactTokenLimit = 1 }
	c := f.start(t)
	defer c.close()
	c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "codex_vscode", "title": "Codex VS Code Extension", "version": "0.1.0"}})
	id := str(c.result("thread/start", map[string]any{"model": "mock-model", "approvalPolicy": "never"}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "trigger compaction")), "turn", "id")
	started := c.notification("item/started", func(p map[string]any) bool { return str(p, "item", "type") == "contextCompaction" })
	completed := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "contextCompaction" })
	legacy := c.notification("thread/compacted", nil)
	if started["threadId"] != id || started["turnId"] != turnID || completed["turnId"] != turnID || str(started, "item", "id") != str(completed, "item", "id") {
		t.Fatalf("contextCompaction item: started %v, completed %v", started, completed)
	}
	if legacy["threadId"] != id || legacy["turnId"] != turnID {
		t.Fatalf("thread/compacted: %v", legacy)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}
