package appserver

// Cases ported from openai/codex codex-rs/app-server/tests/suite/v2/review.rs
// (review/start) and turn_start.rs (processId on commandExecution items).

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
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
