package appserver

// Cases ported from openai/codex codex-rs/app-server/tests/suite/v2/turn_start.rs
// (each test names its Codex test). The scripted model serves the turns
// Codex's mock server serves; the checks are Codex's.

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// requestLog keeps the model requests a fixture's script saw.
type requestLog struct {
	mu   sync.Mutex
	reqs []model.Request
}

func (l *requestLog) wrap(next model.ScriptFunc) model.ScriptFunc {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		l.mu.Lock()
		l.reqs = append(l.reqs, req)
		l.mu.Unlock()
		return next(ctx, req)
	}
}

func (l *requestLog) last() model.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reqs[len(l.reqs)-1]
}

func withOverrides(in map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		in[kv[i].(string)] = kv[i+1]
	}
	return in
}

// Security (issue 34): a client that tightens a turn to untrusted +
// read-only on a thread started with never + danger-full-access gets the
// approval request, and a declined command writes nothing. Codex:
// turn_start.rs turn_start_exec_approval_toggle_v2 (the reverse
// direction) and turn_start_exec_approval_decline_v2 (declined item:
// status declined, exitCode and aggregatedOutput null).
func TestCodexTurnStartOverridesTightenPolicy(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "never", "sandbox": "danger-full-access"}), "thread", "id")

	in := withOverrides(turnInput(root, "write tight"), "approvalPolicy", "untrusted", "sandboxPolicy", map[string]any{"type": "readOnly"})
	turnID := str(c.result("turn/start", in), "turn", "id")
	reqID, ap := c.serverRequest("item/commandExecution/requestApproval")
	if ap["itemId"] != "call-tight" || ap["threadId"] != root || ap["turnId"] != turnID {
		t.Fatalf("approval request: %v", ap)
	}
	c.reply(reqID, map[string]any{"decision": "decline"})
	done := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "commandExecution" })
	item := done["item"].(map[string]any)
	if item["status"] != "declined" || item["exitCode"] != nil || item["aggregatedOutput"] != nil {
		t.Fatalf("declined command item (Codex: declined, exitCode and aggregatedOutput null): %v", item)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if fileExists(filepath.Join(f.cwd, "tight.txt")) {
		t.Fatal("a declined command wrote its file")
	}

	// The tightened policy holds for the next turn (Codex: overrides apply
	// to this turn and the ones after it): a patch asks too.
	turnID = str(c.result("turn/start", turnInput(root, "patch tight")), "turn", "id")
	reqID, _ = c.serverRequest("item/fileChange/requestApproval")
	c.reply(reqID, map[string]any{"decision": "decline"})
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if fileExists(filepath.Join(f.cwd, "tight.md")) {
		t.Fatal("a declined patch wrote its file")
	}
}

// Codex: turn_start.rs turn_start_exec_approval_toggle_v2: untrusted
// asks; the next turn with approvalPolicy never + dangerFullAccess runs
// without asking.
func TestCodexTurnStartExecApprovalToggle(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "untrusted"}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(root, "write one")), "turn", "id")
	reqID, ap := c.serverRequest("item/commandExecution/requestApproval")
	if ap["itemId"] != "call-one" {
		t.Fatalf("approval itemId: %v", ap)
	}
	c.reply(reqID, map[string]any{"decision": "accept"})
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })

	in := withOverrides(turnInput(root, "write two"), "approvalPolicy", "never", "sandboxPolicy", map[string]any{"type": "dangerFullAccess"},
		"model", "mock-model", "effort", "medium", "summary", "auto")
	turnID = str(c.result("turn/start", in), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	for _, m := range c.backlog {
		if m["method"] == "item/commandExecution/requestApproval" {
			t.Fatalf("approval asked under never: %v", m)
		}
	}
	if !fileExists(filepath.Join(f.cwd, "two.txt")) {
		t.Fatal("the command of the never turn did not run")
	}
}

// Codex: turn_start.rs turn_start_updates_sandbox_and_cwd_between_turns_v2:
// the second turn's command starts in the second turn's cwd.
func TestCodexTurnStartUpdatesSandboxAndCwdBetweenTurns(t *testing.T) {
	f := newFixture(t, treeScript)
	first, second := filepath.Join(f.cwd, "turn1"), filepath.Join(f.cwd, "turn2")
	for _, d := range []string{first, second} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "untrusted"}), "thread", "id")
	in := withOverrides(turnInput(root, "write first"), "cwd", first, "approvalPolicy", "never",
		"sandboxPolicy", map[string]any{"type": "workspaceWrite", "writableRoots": []string{first}, "networkAccess": false, "excludeTmpdirEnvVar": false, "excludeSlashTmp": false},
		"model", "mock-model", "effort", "medium", "summary", "auto")
	turnID := str(c.result("turn/start", in), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })

	in = withOverrides(turnInput(root, "write second"), "cwd", second, "approvalPolicy", "never", "sandboxPolicy", map[string]any{"type": "dangerFullAccess"})
	turnID = str(c.result("turn/start", in), "turn", "id")
	started := c.notification("item/started", func(p map[string]any) bool {
		return str(p, "item", "type") == "commandExecution" && p["turnId"] == turnID
	})
	if got := str(started, "item", "cwd"); got != second {
		t.Fatalf("command cwd %q, want %q", got, second)
	}
	if str(started, "item", "status") != "inProgress" {
		t.Fatalf("started command status: %v", started)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if !fileExists(filepath.Join(first, "first.txt")) || !fileExists(filepath.Join(second, "second.txt")) {
		t.Fatal("the commands did not run in their turns' cwd")
	}
}

// Codex: turn_start.rs turn_start_emits_notifications_and_accepts_model_override:
// the second turn's model override reaches the model request; turn ids
// differ.
func TestCodexTurnStartAcceptsModelOverride(t *testing.T) {
	var log requestLog
	f := newFixture(t, log.wrap(treeScript))
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	first := str(c.result("turn/start", turnInput(root, "Hello")), "turn", "id")
	st := c.notification("turn/started", nil)
	if st["threadId"] != root || str(st, "turn", "status") != "inProgress" {
		t.Fatalf("turn/started: %v", st)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == first })
	in := withOverrides(turnInput(root, "Second"), "model", "mock-model-override", "effort", "high", "summary", "detailed",
		"outputSchema", map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}})
	second := str(c.result("turn/start", in), "turn", "id")
	if second == "" || second == first {
		t.Fatalf("turn ids %q, %q", first, second)
	}
	tc := c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == second })
	if tc["threadId"] != root || str(tc, "turn", "status") != "completed" {
		t.Fatalf("turn/completed: %v", tc)
	}
	req := log.last()
	if req.Model != "mock-model-override" || req.ReasoningEffort != "high" || req.ReasoningSummary != "detailed" || len(req.OutputSchema) == 0 {
		t.Fatalf("model request after the overrides: model %q effort %q summary %q schema %s", req.Model, req.ReasoningEffort, req.ReasoningSummary, req.OutputSchema)
	}
	// outputSchema is the turn's own (Codex output_schema.rs
	// send_user_turn_output_schema_is_per_turn_v2).
	third := str(c.result("turn/start", turnInput(root, "Third")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == third })
	if req := log.last(); len(req.OutputSchema) != 0 || req.Model != "mock-model-override" {
		t.Fatalf("third turn: schema %s (per turn), model %q (holds)", req.OutputSchema, req.Model)
	}
}

// Bad overrides are the client's error and start no turn.
func TestCodexTurnStartRejectsBadOverrides(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	for name, in := range map[string]map[string]any{
		"relative cwd":     withOverrides(turnInput(root, "x"), "cwd", "rel/dir"),
		"missing cwd":      withOverrides(turnInput(root, "x"), "cwd", filepath.Join(f.cwd, "nope")),
		"granular policy":  withOverrides(turnInput(root, "x"), "approvalPolicy", map[string]any{"granular": map[string]any{}}),
		"unknown sandbox":  withOverrides(turnInput(root, "x"), "sandboxPolicy", map[string]any{"type": "open"}),
		"external sandbox": withOverrides(turnInput(root, "x"), "sandboxPolicy", map[string]any{"type": "externalSandbox"}),
		"bad summary":      withOverrides(turnInput(root, "x"), "summary", "long"),
	} {
		r := c.call("turn/start", in)
		e, _ := r["error"].(map[string]any)
		if e == nil {
			t.Fatalf("%s: accepted: %v", name, r)
		}
	}
	// The thread still takes a turn.
	turnID := str(c.result("turn/start", turnInput(root, "hi")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}
