package appserver

// App-server conformance cases ported from openai/codex
// codex-rs/app-server/tests/suite/v2/*.rs (file and test named per case),
// run against grove's server with the scripted model; every message is
// validated against Codex's schema bundle by the client harness.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
)

func itoa(i int) string { return strconv.Itoa(i) }

func fmtID(v any) string { return fmt.Sprint(v) }

// initialize.rs initialize_uses_client_info_name_as_originator.
func TestCodexInitializeUsesClientNameAsOriginator(t *testing.T) {
	t.Setenv("CODEX_INTERNAL_ORIGINATOR_OVERRIDE", "")
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	r := c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "codex_vscode", "title": "Codex VS Code Extension", "version": "0.1.0"}})
	if ua, _ := r["userAgent"].(string); !strings.HasPrefix(ua, "codex_vscode/") {
		t.Fatalf("userAgent %q", ua)
	}
}

// initialize.rs initialize_respects_originator_override_env_var.
func TestCodexInitializeRespectsOriginatorOverride(t *testing.T) {
	t.Setenv("CODEX_INTERNAL_ORIGINATOR_OVERRIDE", "codex_originator_via_env_var")
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	r := c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "codex_vscode", "version": "0.1.0"}})
	if ua, _ := r["userAgent"].(string); !strings.HasPrefix(ua, "codex_originator_via_env_var/") {
		t.Fatalf("userAgent %q", ua)
	}
}

// initialize.rs initialize_rejects_invalid_client_name.
func TestCodexInitializeRejectsInvalidClientName(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	m := c.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "bad\rname", "title": "Bad Client", "version": "0.1.0"}})
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32600) || e["message"] != "Invalid clientInfo.name: 'bad\rname'. Must be a valid HTTP header value." || e["data"] != nil {
		t.Fatalf("initialize with a control character: %v", m)
	}
	// The connection is still uninitialized and takes a good name.
	c.initialize()
}

// initialize.rs (optOutNotificationMethods, InitializeCapabilities in
// v1.rs): an opted-out notification is never sent.
func TestCodexInitializeOptOutNotificationMethods(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "test", "version": "1"},
		"capabilities": map[string]any{"optOutNotificationMethods": []string{"thread/started", "item/agentMessage/delta"}}})
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(root, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	for _, m := range c.backlog {
		if m["method"] == "thread/started" || m["method"] == "item/agentMessage/delta" {
			t.Fatalf("opted-out notification sent: %v", m)
		}
	}
}

// thread_list.rs thread_list_respects_cwd_filters (one directory or a
// list) and the modelProviders filter; threads report their provider.
func TestCodexThreadListFiltersByCwdAndProvider(t *testing.T) {
	f := newFixture(t, treeScript)
	dirA, dirB, dirC := filepath.Join(f.cwd, "a"), filepath.Join(f.cwd, "b"), filepath.Join(f.cwd, "c")
	for _, d := range []string{dirA, dirB, dirC} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	ids := map[string]string{}
	for _, d := range []string{dirA, dirB, dirC} {
		id := str(c.result("thread/start", map[string]any{"cwd": d}), "thread", "id")
		turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
		c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
		ids[d] = id
	}
	list := func(params map[string]any) []string {
		var out []string
		data, _ := c.result("thread/list", params)["data"].([]any)
		for _, d := range data {
			th := d.(map[string]any)
			if th["modelProvider"] != "scripted" {
				t.Fatalf("modelProvider %v, want the session's provider", th["modelProvider"])
			}
			out = append(out, str(th, "id"))
		}
		return out
	}
	if got := list(map[string]any{"cwd": dirB}); len(got) != 1 || got[0] != ids[dirB] {
		t.Fatalf("cwd filter: %v", got)
	}
	if got := list(map[string]any{"cwd": []string{dirA, dirC}, "modelProviders": []string{"scripted"}}); len(got) != 2 || got[0] != ids[dirC] || got[1] != ids[dirA] {
		t.Fatalf("cwd list filter (newest first): %v", got)
	}
	if got := list(map[string]any{"modelProviders": []string{"other_provider"}}); len(got) != 0 {
		t.Fatalf("provider filter: %v", got)
	}
}

// thread_start.rs (ephemeral: true): no rollout, never listed; the
// thread still runs turns and reports ephemeral.
func TestCodexThreadStartEphemeral(t *testing.T) {
	f := newFixture(t, treeScript)
	f.build = func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
		home := f.home
		if cfg.Ephemeral {
			home = t.TempDir() // what cmd/grove's factory does: a store of its own
		}
		return f.factoryAt(ctx, cfg, home)
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/start", map[string]any{"cwd": f.cwd, "ephemeral": true, "threadSource": "test_source"})
	th := r["thread"].(map[string]any)
	if th["ephemeral"] != true || th["threadSource"] != "test_source" {
		t.Fatalf("thread/start: %v", th)
	}
	id := str(th, "id")
	turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if data, _ := c.result("thread/list", map[string]any{})["data"].([]any); len(data) != 0 {
		t.Fatalf("an ephemeral thread was listed: %v", data)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.home, "sessions")); len(entries) != 0 {
		t.Fatalf("an ephemeral thread wrote to the store: %v", entries)
	}
}

// thread_resume.rs (excludeTurns) and thread_read.rs (turns carry
// itemsView "full").
func TestCodexThreadResumeExcludeTurnsAndItemsView(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	read := c.result("thread/read", map[string]any{"threadId": id, "includeTurns": true})
	turns, _ := read["thread"].(map[string]any)["turns"].([]any)
	if len(turns) == 0 || turns[0].(map[string]any)["itemsView"] != "full" {
		t.Fatalf("thread/read turns: %v", turns)
	}
	c.close()
	c = f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/resume", map[string]any{"threadId": id, "excludeTurns": true})
	if turns, _ := r["thread"].(map[string]any)["turns"].([]any); len(turns) != 0 {
		t.Fatalf("excludeTurns sent turns: %v", turns)
	}
}

// turn_interrupt.rs turn_interrupt_resolves_pending_command_approval_request:
// serverRequest/resolved closes the client's dialog.
func TestCodexTurnInterruptResolvesPendingApproval(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "untrusted"}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(root, "write pending")), "turn", "id")
	reqID, _ := c.serverRequest("item/commandExecution/requestApproval")
	c.result("turn/interrupt", map[string]any{"threadId": root, "turnId": turnID})
	res := c.notification("serverRequest/resolved", nil)
	if res["threadId"] != root || res["requestId"] != reqID {
		t.Fatalf("serverRequest/resolved %v for request %v", res, reqID)
	}
	// Nobody declined it (grove's own check; Codex's test stops at the
	// resolution): the command that never ran ends failed, not declined.
	done := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "commandExecution" })
	if st := str(done, "item", "status"); st != "failed" {
		t.Fatalf("command interrupted while its approval waited: status %q, want failed: %v", st, done)
	}
	tc := c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if str(tc, "turn", "status") != "interrupted" || fileExists(filepath.Join(f.cwd, "pending.txt")) {
		t.Fatalf("interrupted turn: %v", tc)
	}
}

// turn_start.rs turn_start_file_change_approval_v2: absolute path, kind
// add, the added content as diff, item/fileChange/outputDelta, the file.
func TestCodexTurnStartFileChangeApproval(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "untrusted"}), "thread", "id")
	turnID := str(c.result("turn/start", withOverrides(turnInput(root, "patch README"), "cwd", f.cwd)), "turn", "id")
	started := c.notification("item/started", func(p map[string]any) bool { return str(p, "item", "type") == "fileChange" })
	item := started["item"].(map[string]any)
	changes, _ := item["changes"].([]any)
	want := filepath.Join(f.cwd, "README.md")
	if item["status"] != "inProgress" || len(changes) != 1 || str(changes[0].(map[string]any), "path") != want ||
		str(changes[0].(map[string]any), "kind", "type") != "add" || str(changes[0].(map[string]any), "diff") != "hello\n" {
		t.Fatalf("started fileChange: %v", item)
	}
	reqID, ap := c.serverRequest("item/fileChange/requestApproval")
	if ap["itemId"] != "call-patch-README" || ap["threadId"] != root || ap["turnId"] != turnID {
		t.Fatalf("approval: %v", ap)
	}
	c.reply(reqID, map[string]any{"decision": "accept"})
	delta := c.notification("item/fileChange/outputDelta", nil)
	if delta["threadId"] != root || delta["turnId"] != turnID || delta["itemId"] != "call-patch-README" || str(delta, "delta") == "" {
		t.Fatalf("outputDelta: %v", delta)
	}
	done := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "fileChange" })
	if str(done, "item", "status") != "completed" {
		t.Fatalf("completed: %v", done)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != "hello\n" {
		t.Fatalf("README.md: %q %v", b, err)
	}
}

// Issue 36.6 (Codex thread_unsubscribe.rs: the last subscriber's
// unsubscribe unloads the thread): thread/unsubscribe closes the thread;
// it stays listed and thread/resume loads it again.
func TestCodexThreadUnsubscribeUnloads(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if r := c.result("thread/unsubscribe", map[string]any{"threadId": id}); r["status"] != "unsubscribed" {
		t.Fatalf("unsubscribe: %v", r)
	}
	c.notification("thread/closed", func(p map[string]any) bool { return p["threadId"] == id })
	if r := c.result("thread/unsubscribe", map[string]any{"threadId": id}); r["status"] != "notLoaded" {
		t.Fatalf("second unsubscribe: %v", r)
	}
	if m := c.call("turn/start", turnInput(id, "again")); m["error"] == nil {
		t.Fatalf("turn/start on an unloaded thread: %v", m)
	}
	c.result("thread/resume", map[string]any{"threadId": id})
	turnID = str(c.result("turn/start", turnInput(id, "again")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}

// Issue 36.6: a connection keeps at most MaxLoadedSessions sessions; the
// least recently used idle one is unloaded (thread/closed) and resumable.
func TestLoadedSessionsAreBounded(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.startWith(t, Options{MaxLoadedSessions: 2})
	defer c.close()
	c.initialize()
	var ids []string
	for i := 0; i < 5; i++ {
		id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
		turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
		c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
		ids = append(ids, id)
	}
	for _, id := range ids[:3] {
		c.notification("thread/closed", func(p map[string]any) bool { return p["threadId"] == id })
	}
	if data, _ := c.result("thread/list", map[string]any{})["data"].([]any); len(data) != 5 {
		t.Fatalf("listed %d threads, want 5", len(data))
	}
	c.result("thread/resume", map[string]any{"threadId": ids[0]})
	c.notification("thread/closed", func(p map[string]any) bool { return p["threadId"] == ids[3] })
}

// thread_archive.rs: an archived thread leaves thread/list (archived: true
// lists it) and thread/unarchive brings it back.
func TestCodexThreadArchiveUnarchive(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	c.result("thread/archive", map[string]any{"threadId": id})
	c.notification("thread/archived", func(p map[string]any) bool { return p["threadId"] == id })
	if data, _ := c.result("thread/list", map[string]any{})["data"].([]any); len(data) != 0 {
		t.Fatalf("an archived thread was listed: %v", data)
	}
	if data, _ := c.result("thread/list", map[string]any{"archived": true})["data"].([]any); len(data) != 1 {
		t.Fatalf("archived: true listed %v", data)
	}
	r := c.result("thread/unarchive", map[string]any{"threadId": id})
	if str(r, "thread", "id") != id {
		t.Fatalf("unarchive: %v", r)
	}
	c.notification("thread/unarchived", func(p map[string]any) bool { return p["threadId"] == id })
	if data, _ := c.result("thread/list", map[string]any{})["data"].([]any); len(data) != 1 {
		t.Fatalf("unarchived thread not listed: %v", data)
	}
}

// model_list.rs: every model carries Codex 0.169's required fields.
func TestCodexModelListRequiredFields(t *testing.T) {
	f := newFixture(t, treeScript)
	cfg := &config.Config{Model: "gpt-5.1"}
	c := f.startWith(t, Options{Host: &Host{Config: cfg, Provider: config.Resolved{Name: "openai", Model: "gpt-5.1"}}})
	defer c.close()
	c.initialize()
	data, _ := c.result("model/list", map[string]any{})["data"].([]any)
	if len(data) == 0 {
		t.Fatal("no models")
	}
	for _, d := range data {
		m := d.(map[string]any)
		for _, k := range []string{"hidden", "inputModalities", "supportsPersonality", "isDefault", "supportedReasoningEfforts", "defaultReasoningEffort"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("model %v lacks %s", m["id"], k)
			}
		}
	}
}

// Issue 36: a client that closes stdin and stops reading does not keep
// the server alive: Serve returns once the grace is over.
func TestServerExitsWhenClientStopsReadingAfterEOF(t *testing.T) {
	f := newFixture(t, treeScript)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // never read until the end
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, Options{Home: f.home, NewEngine: f.factory, Version: "t", ShutdownGrace: 500 * time.Millisecond, WriteStall: 500 * time.Millisecond})
	}()
	lines := `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	for i := 0; i < 3000; i++ { // far more answers than a pipe and the queue hold
		lines += `{"id":` + itoa(i+2) + `,"method":"thread/list","params":{}}` + "\n"
	}
	go func() {
		_, _ = io.WriteString(inW, lines)
		_ = inW.Close()
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Serve still running 60s after EOF with a client that stopped reading")
	}
	_ = outR.Close() // lets the abandoned write loop return
}

// Issue 36: a turn/start read just before EOF gets an answer (its turn or
// an error), never silence.
func TestTurnStartRacingEOFIsAnswered(t *testing.T) {
	f := newFixture(t, blockingScript(nil))
	c := f.start(t)
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	id := c.request("turn/start", turnInput(root, "block"))
	_ = c.in.Close()
	answered := false
	for m := range c.msgs {
		if m["method"] == nil && fmtID(m["id"]) == id {
			answered = true
		}
	}
	for _, m := range c.backlog {
		if m["method"] == nil && fmtID(m["id"]) == id {
			answered = true
		}
	}
	if err := <-c.done; err != nil {
		t.Fatal(err)
	}
	if !answered {
		t.Fatal("turn/start racing EOF got no answer")
	}
}

// config_rpc.rs (config/read reports what the user configured): with no
// key the offline demo's model is not reported as configuration, and the
// -c/flag overrides are the sessionFlags layer.
func TestCodexConfigReadDemoIsNotUserConfig(t *testing.T) {
	f := newFixture(t, treeScript)
	cfg := &config.Config{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}
	c := f.startWith(t, Options{Host: &Host{Config: cfg, Provider: config.Resolved{Name: "demo", Model: "grove-demo", Demo: true}, Overrides: []string{`approval_policy="never"`}}})
	defer c.close()
	c.initialize()
	r := c.result("config/read", map[string]any{"includeLayers": true})
	conf := r["config"].(map[string]any)
	if conf["model"] != nil || conf["model_provider"] != nil {
		t.Fatalf("the demo reported as configuration: %v", conf)
	}
	layers, _ := r["layers"].([]any)
	if len(layers) != 1 || str(layers[0].(map[string]any), "name", "type") != "sessionFlags" {
		t.Fatalf("layers: %v", layers)
	}
}

// Issue 36.6: 200 threads on one connection hold a bounded number of
// file descriptors (the sessions beyond MaxLoadedSessions are unloaded),
// where every thread used to keep its files open.
func TestTwoHundredThreadsHoldBoundedFDs(t *testing.T) {
	if testing.Short() {
		t.Skip("200 sessions")
	}
	f := newFixture(t, treeScript)
	c := f.startWith(t, Options{MaxLoadedSessions: fdTestBound})
	defer c.close()
	c.initialize()
	before := openFDs(t)
	peak := before
	for i := 0; i < 200; i++ {
		id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
		turnID := str(c.result("turn/start", turnInput(id, "hello")), "turn", "id")
		c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
		c.backlog = c.backlog[:0]
		peak = max(peak, openFDs(t))
	}
	// 16 loaded sessions at a few files each, well under a 128-fd limit.
	if grown := peak - before; grown > 100 {
		t.Fatalf("200 threads grew the open files by %d (from %d): sessions are not released", grown, before)
	}
	t.Logf("open fds: %d before, peak %d over 200 threads", before, peak)
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

// fdTestBound is the bound TestTwoHundredThreadsHoldBoundedFDs runs with
// (the default; raising it to 1000 shows the unbounded growth).
var fdTestBound = defaultMaxLoadedSessions

// turn_steer.rs: steering input reaches the running turn (its next model
// request, in the same turn), the answer names the turn; without a running
// turn, or with another expectedTurnId, it is refused.
func TestCodexTurnSteer(t *testing.T) {
	reached, release := make(chan struct{}, 1), make(chan struct{})
	var log requestLog
	f := newFixture(t, log.wrap(func(ctx context.Context, req model.Request) (model.Response, error) {
		if prompt, _ := lastInput(req.Items); prompt == "steer me" {
			reached <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return model.Response{}, ctx.Err()
			}
			return model.Response{Text: "first answer"}, nil
		}
		return model.Response{Text: "steered answer"}, nil
	}))
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	steer := func(expected string) map[string]any {
		return c.call("turn/steer", map[string]any{"threadId": root, "expectedTurnId": expected, "input": []any{map[string]any{"type": "text", "text": "also say hi"}}})
	}
	if m := steer(""); m["error"] == nil {
		t.Fatalf("steer with no turn: %v", m)
	}
	turnID := str(c.result("turn/start", turnInput(root, "steer me")), "turn", "id")
	<-reached
	if m := steer("other"); m["error"] == nil {
		t.Fatalf("steer of another turn: %v", m)
	}
	if m := steer(turnID); str(m, "result", "turnId") != turnID {
		t.Fatalf("turn/steer: %v", m)
	}
	close(release)
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	// Input that arrives during the turn's last model call is taken by
	// the follow-on turn the engine starts at once (grove's queued input).
	if prompt, _ := lastInput(log.last().Items); prompt != "also say hi" {
		c.notification("turn/completed", func(p map[string]any) bool { return p["threadId"] == root && str(p, "turn", "id") != turnID })
	}
	if prompt, _ := lastInput(log.last().Items); prompt != "also say hi" {
		t.Fatalf("the last request ends with %q, want the steering input", prompt)
	}
}

// turn_start.rs (UserInput::Text text_elements): the userMessage item
// echoes the client's input with its text_elements.
func TestCodexTurnStartKeepsTextElements(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	elements := []any{map[string]any{"byteRange": map[string]any{"start": 0, "end": 5}, "placeholder": "@file"}}
	in := map[string]any{"threadId": root, "input": []any{map[string]any{"type": "text", "text": "hello there", "text_elements": elements}}}
	turnID := str(c.result("turn/start", in), "turn", "id")
	item := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "userMessage" })
	content, _ := item["item"].(map[string]any)["content"].([]any)
	if len(content) != 1 || mustJSON(content[0].(map[string]any)["text_elements"]) != mustJSON(elements) {
		t.Fatalf("userMessage item: %v", item)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}

// thread_fork.rs: a fork is a new thread with the source's turns; a turn
// on the fork leaves the source as it was.
func TestCodexThreadFork(t *testing.T) {
	var log requestLog
	f := newFixture(t, log.wrap(treeScript))
	c := f.start(t)
	defer c.close()
	c.initialize()
	src := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(src, "original question")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	fork := c.result("thread/fork", map[string]any{"threadId": src})
	forkID := str(fork, "thread", "id")
	turns, _ := fork["thread"].(map[string]any)["turns"].([]any)
	if forkID == "" || forkID == src || len(turns) == 0 || !strings.Contains(mustJSON(turns[0]), "original question") {
		t.Fatalf("thread/fork: %v", fork)
	}
	c.notification("thread/started", func(p map[string]any) bool { return str(p, "thread", "id") == forkID })
	turnID = str(c.result("turn/start", turnInput(forkID, "fork only")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if prompt, _ := lastInput(log.last().Items); prompt != "fork only" || !strings.Contains(mustJSON(log.last().Items), "original question") {
		t.Fatalf("the fork's request lacks the copied history: %s", mustJSON(log.last().Items))
	}
	read := c.result("thread/read", map[string]any{"threadId": src, "includeTurns": true})
	if strings.Contains(mustJSON(read), "fork only") {
		t.Fatal("the fork's turn reached the source thread")
	}
}
