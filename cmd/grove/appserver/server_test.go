package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// treeScript is the scripted model of the tests: "write NAME" runs a
// command that writes NAME.txt, "patch NAME" adds NAME.md, "spawn" spawns a
// child and waits for it, "block" runs until interrupted.
func treeScript(ctx context.Context, req model.Request) (model.Response, error) {
	return blockingScript(nil)(ctx, req)
}

// blockingScript is treeScript that signals blocked when "block" is in its
// model call.
func blockingScript(blocked chan<- struct{}) model.ScriptFunc {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		return script(ctx, req, blocked)
	}
}

func script(ctx context.Context, req model.Request, blocked chan<- struct{}) (model.Response, error) {
	prompt, outs := lastInput(req.Items)
	switch {
	case strings.Contains(prompt, "child task"):
		return model.Response{Text: "child finished", Usage: protocol.TokenUsage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}}, nil
	case strings.HasPrefix(prompt, "write "):
		name := strings.TrimPrefix(prompt, "write ")
		if len(outs) == 0 {
			return model.Response{Reasoning: "I will write " + name, ToolCalls: []model.ToolCallRequest{toolCall("call-"+name, "exec_command", map[string]any{"cmd": "echo hi > " + name + ".txt && cat " + name + ".txt"})}}, nil
		}
		return model.Response{Text: "wrote " + name, Usage: protocol.TokenUsage{InputTokens: 10, OutputTokens: 4, TotalTokens: 14}}, nil
	case prompt == "spawn":
		return spawnAndWait(outs, "child task"), nil
	case prompt == "spawn deep":
		// A sub-agent that spawns one of its own: root → child → grandchild.
		return spawnAndWait(outs, "middle task: spawn"), nil
	case strings.Contains(prompt, "middle task: spawn"):
		return spawnAndWait(outs, "child task"), nil
	case strings.HasPrefix(prompt, "patch "):
		name := strings.TrimPrefix(prompt, "patch ")
		if len(outs) == 0 {
			patch := "*** Begin Patch\n*** Add File: " + name + ".md\n+hello\n*** End Patch\n"
			return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-patch-"+name, "apply_patch", map[string]any{"input": patch})}}, nil
		}
		return model.Response{Text: "patched " + name}, nil
	case prompt == "block":
		if blocked != nil {
			blocked <- struct{}{}
		}
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	return model.Response{Text: "ok"}, nil
}

// spawnAndWait spawns one sub-agent on message, waits for it, and ends
// the turn (outs: the turn's tool outputs so far).
func spawnAndWait(outs []string, message string) model.Response {
	switch len(outs) {
	case 0:
		return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-spawn", "spawn_agent", map[string]any{"message": message})}}
	case 1:
		var r struct {
			AgentID string `json:"agent_id"`
		}
		_ = json.Unmarshal([]byte(outs[0]), &r)
		return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-wait", "wait", map[string]any{"ids": []string{r.AgentID}})}}
	}
	return model.Response{Text: "children done"}
}

func str(m map[string]any, keys ...string) string {
	var cur any = m
	for _, k := range keys {
		mm, _ := cur.(map[string]any)
		cur = mm[k]
	}
	s, _ := cur.(string)
	return s
}

// TestAppServerSession drives a whole session: start with Codex's options,
// a command approved and one declined by the client, a note, a sub-agent
// thread, an interrupt, listing and reading; then a second server resumes
// the session and the engine (as the TUI opens it) resumes it too.
func TestAppServerSession(t *testing.T) {
	blocked := make(chan struct{}, 1)
	f := newFixture(t, blockingScript(blocked))
	c := f.start(t)
	c.initialize()

	start := c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "untrusted", "sandbox": "workspace-write", "model": "model-x"})
	root := str(start, "thread", "id")
	if root == "" || start["approvalPolicy"] != "untrusted" || start["model"] != "model-x" || start["cwd"] != f.cwd || str(start, "sandbox", "type") != "workspaceWrite" {
		t.Fatalf("thread/start did not honour its params: %v", start)
	}
	c.notification("thread/started", func(p map[string]any) bool { return str(p, "thread", "id") == root })

	// A command the client accepts.
	turn := c.result("turn/start", turnInput(root, "write a"))
	turnID := str(turn, "turn", "id")
	c.notification("turn/started", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	c.notification("item/reasoning/summaryTextDelta", func(p map[string]any) bool { return p["turnId"] == turnID })
	reasoning := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "reasoning" })
	if got := mustJSON(reasoning["item"]); !strings.Contains(got, "I will write a") {
		t.Fatalf("reasoning item: %s", got)
	}
	reqID, ap := c.serverRequest("item/commandExecution/requestApproval")
	if ap["threadId"] != root || ap["turnId"] != turnID || !strings.Contains(str(ap, "command"), "a.txt") {
		t.Fatalf("approval request: %v", ap)
	}
	c.reply(reqID, map[string]any{"decision": "accept"})
	done := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "commandExecution" })
	if str(done, "item", "status") != "completed" || !strings.Contains(str(done, "item", "aggregatedOutput"), "hi") {
		t.Fatalf("accepted command: %v", done)
	}
	c.notification("item/commandExecution/outputDelta", nil)
	c.notification("item/agentMessage/delta", func(p map[string]any) bool { return p["threadId"] == root })
	c.notification("thread/tokenUsage/updated", func(p map[string]any) bool { return p["threadId"] == root })
	tc := c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if str(tc, "turn", "status") != "completed" || !fileExists(filepath.Join(f.cwd, "a.txt")) {
		t.Fatalf("turn after an accepted command: %v", tc)
	}

	// A command the client declines.
	turnID = str(c.result("turn/start", turnInput(root, "write b")), "turn", "id")
	reqID, _ = c.serverRequest("item/commandExecution/requestApproval")
	c.reply(reqID, map[string]any{"decision": "decline"})
	done = c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "commandExecution" })
	if str(done, "item", "status") != "declined" || fileExists(filepath.Join(f.cwd, "b.txt")) {
		t.Fatalf("declined command: %v", done)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })

	// A patch the client accepts, then one it cancels (which also
	// interrupts the turn).
	turnID = str(c.result("turn/start", turnInput(root, "patch p1")), "turn", "id")
	reqID, ap = c.serverRequest("item/fileChange/requestApproval")
	if ap["threadId"] != root || ap["turnId"] != turnID || ap["itemId"] != "call-patch-p1" {
		t.Fatalf("patch approval: %v", ap)
	}
	c.reply(reqID, map[string]any{"decision": "accept"})
	done = c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "fileChange" })
	changes, _ := done["item"].(map[string]any)["changes"].([]any)
	if str(done, "item", "status") != "completed" || len(changes) != 1 || str(changes[0].(map[string]any), "path") != filepath.Join(f.cwd, "p1.md") || !fileExists(filepath.Join(f.cwd, "p1.md")) {
		t.Fatalf("accepted patch: %v", done)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	turnID = str(c.result("turn/start", turnInput(root, "patch p2")), "turn", "id")
	reqID, _ = c.serverRequest("item/fileChange/requestApproval")
	c.reply(reqID, map[string]any{"decision": "cancel"})
	done = c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "fileChange" })
	tc = c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if str(done, "item", "status") != "declined" || str(tc, "turn", "status") != "interrupted" || fileExists(filepath.Join(f.cwd, "p2.md")) {
		t.Fatalf("cancelled patch: item %v, turn %v", done, tc)
	}

	// thread/note/set answers the normalized note and notifies it.
	note := c.result("thread/note/set", map[string]any{"threadId": root, "note": "  reviewing the parser  "})
	upd := c.notification("thread/note/updated", nil)
	if note["threadId"] != root || upd["threadId"] != root || upd["note"] != note["note"] || !strings.Contains(str(note, "note"), "reviewing the parser") {
		t.Fatalf("note: response %v, notification %v", note, upd)
	}

	// A sub-agent is a thread of its own, naming its parent.
	turnID = str(c.result("turn/start", turnInput(root, "spawn")), "turn", "id")
	child := c.notification("thread/started", func(p map[string]any) bool { return str(p, "thread", "parentThreadId") == root })
	childID := str(child, "thread", "id")
	if str(child, "thread", "source", "subAgent", "thread_spawn", "parent_thread_id") != root {
		t.Fatalf("child thread source: %v", child)
	}
	// Its nickname is the engine's, the one the TUI shows and the rollout
	// keeps (Codex's Thread.agentNickname and ThreadSpawn.agent_nickname).
	nick := str(child, "thread", "agentNickname")
	if meta, err := rollout.Read(str(child, "thread", "path")); err != nil || nick == "" || meta.Meta.AgentNickname != nick ||
		nick != str(child, "thread", "source", "subAgent", "thread_spawn", "agent_nickname") {
		t.Fatalf("child nickname %q (rollout: %v): %v", nick, err, child)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return p["threadId"] == childID })
	spawn := c.notification("item/completed", func(p map[string]any) bool {
		return p["threadId"] == root && str(p, "item", "type") == "collabAgentToolCall" && str(p, "item", "tool") == "spawnAgent"
	})
	if ids, _ := spawn["item"].(map[string]any)["receiverThreadIds"].([]any); len(ids) != 1 || ids[0] != childID {
		t.Fatalf("spawn item receivers: %v", spawn)
	}
	wait := c.notification("item/completed", func(p map[string]any) bool {
		return p["threadId"] == root && str(p, "item", "tool") == "wait"
	})
	if got := str(wait, "item", "agentsStates", childID, "status"); got != "completed" {
		t.Fatalf("wait item's agent state: %v", wait)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })

	// Interrupt a running turn.
	turnID = str(c.result("turn/start", turnInput(root, "block")), "turn", "id")
	c.notification("turn/started", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	select {
	case <-blocked: // the turn is in its model call
	case <-time.After(60 * time.Second):
		t.Fatal("the blocking turn never reached the model")
	}
	if r := c.call("turn/start", turnInput(root, "again")); r["error"] == nil {
		t.Fatalf("a second turn/start while one runs was accepted: %v", r)
	}
	c.result("turn/interrupt", map[string]any{"threadId": root, "turnId": turnID})
	tc = c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if str(tc, "turn", "status") != "interrupted" {
		t.Fatalf("interrupted turn: %v", tc)
	}

	list := c.result("thread/list", map[string]any{"limit": 10})
	data, _ := list["data"].([]any)
	if len(data) != 1 || str(data[0].(map[string]any), "id") != root {
		t.Fatalf("thread/list lists root sessions only: %v", list)
	}
	read := c.result("thread/read", map[string]any{"threadId": root, "includeTurns": true})
	if turns, _ := read["thread"].(map[string]any)["turns"].([]any); len(turns) < 6 {
		t.Fatalf("thread/read turns: %v", read)
	}
	c.result("thread/read", map[string]any{"threadId": childID})
	c.close()

	// A new server resumes the session from the shared store.
	c = f.start(t)
	c.initialize()
	res := c.result("thread/resume", map[string]any{"threadId": root})
	turns, _ := res["thread"].(map[string]any)["turns"].([]any)
	if len(turns) < 4 || !strings.Contains(mustJSON(turns[0]), "write a") {
		t.Fatalf("resumed thread turns: %v", res)
	}
	turnID = str(c.result("turn/start", turnInput(root, "hello")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	c.close()

	// The engine, as the TUI opens it, resumes the editor's session.
	eng, err := f.factory(context.Background(), ThreadConfig{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := eng.ResumeSession(root)
	if err != nil {
		t.Fatalf("resume in the engine: %v", err)
	}
	hist := eng.History(id)
	if p, _ := lastInput(hist); p != "hello" {
		t.Fatalf("resumed history ends with %q", p)
	}
	shutdown(t, eng)
}

func shutdown(t *testing.T, eng engine.SessionControl) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := eng.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAppServerErrors: JSON-RPC errors with their codes; the connection
// survives every one of them.
func TestAppServerErrors(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	if r := c.call("thread/list", nil); code(r) != protocol.RPCInvalidRequest {
		t.Fatalf("request before initialize: %v", r)
	}
	c.initialize()
	c.writeLine(`{"id": 99, "method": "thread/list", "params": {`)
	if m := c.next(func(m map[string]any) bool { return m["error"] != nil }, "parse error"); code(m) != protocol.RPCParseError || m["id"] != nil {
		t.Fatalf("malformed JSON: %v", m)
	}
	if r := c.call("thread/frobnicate", map[string]any{}); code(r) != protocol.RPCMethodNotFound {
		t.Fatalf("unknown method: %v", r)
	}
	r := c.call("thread/read", map[string]any{"threadId": 42})
	if code(r) != protocol.RPCInvalidParams || !strings.Contains(str(r, "error", "message"), "threadId") {
		t.Fatalf("bad params must name the field: %v", r)
	}
	r = c.call("thread/start", map[string]any{"approvalPolicy": "sometimes"})
	if code(r) != protocol.RPCInvalidParams || !strings.Contains(str(r, "error", "message"), "approvalPolicy") {
		t.Fatalf("bad approvalPolicy: %v", r)
	}
	if r := c.call("turn/start", map[string]any{"threadId": "nope", "input": []any{}}); code(r) != protocol.RPCInvalidParams {
		t.Fatalf("empty input: %v", r)
	}
	// Still serving.
	c.result("thread/list", map[string]any{})
	c.close()
}

func code(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	n, _ := e["code"].(float64)
	return int(n)
}

// TestAppServerOverloaded: with the request queue full, a request is
// answered -32001 with Codex's message, and the connection goes on.
func TestAppServerOverloaded(t *testing.T) {
	f := newFixture(t, treeScript)
	gate := make(chan struct{})
	build := f.factory
	f.build = func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
		<-gate // holds the worker inside thread/start
		return build(ctx, cfg)
	}
	c := f.startWith(t, Options{QueueSize: 1})
	c.initialize()
	start := c.request("thread/start", map[string]any{})
	// The worker holds thread/start, or it still waits in the queue: of
	// three more requests, at least two find the queue (of one) full.
	sent := map[string]bool{}
	for i := 0; i < 3; i++ {
		sent[c.request("thread/list", map[string]any{})] = true
	}
	for refused := 0; refused < 2; refused++ {
		m := c.next(func(m map[string]any) bool { return sent[fmt.Sprint(m["id"])] && m["error"] != nil }, "overload error")
		if code(m) != protocol.RPCOverloaded || str(m, "error", "message") != protocol.RPCOverloadedMessage {
			t.Fatalf("overload answer: %v", m)
		}
		delete(sent, fmt.Sprint(m["id"]))
	}
	close(gate)
	c.next(func(m map[string]any) bool { return fmt.Sprint(m["id"]) == start && m["result"] != nil }, "thread/start response")
	for id := range sent { // the one that was queued (if any) is answered
		c.next(func(m map[string]any) bool { return fmt.Sprint(m["id"]) == id }, "queued request's answer")
	}
	c.result("thread/list", map[string]any{})
	c.close()
}

// TestAppServerSubAgentApproval: a sub-agent's command approval names the
// sub-agent's thread and turn.
func TestAppServerSubAgentApproval(t *testing.T) {
	f := newFixture(t, func(ctx context.Context, req model.Request) (model.Response, error) {
		prompt, outs := lastInput(req.Items)
		switch {
		case strings.Contains(prompt, "child writes"):
			if len(outs) == 0 {
				return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-child", "exec_command", map[string]any{"cmd": "echo x > child.txt"})}}, nil
			}
			return model.Response{Text: "child wrote"}, nil
		case prompt == "delegate" && len(outs) == 0:
			return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-spawn", "spawn_agent", map[string]any{"message": "child writes"})}}, nil
		}
		return model.Response{Text: "ok"}, nil
	})
	c := f.start(t)
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"approvalPolicy": "untrusted"}), "thread", "id")
	c.result("turn/start", turnInput(root, "delegate"))
	child := c.notification("thread/started", func(p map[string]any) bool { return str(p, "thread", "parentThreadId") == root })
	childID := str(child, "thread", "id")
	childTurn := str(c.notification("turn/started", func(p map[string]any) bool { return p["threadId"] == childID }), "turn", "id")
	id, ap := c.serverRequest("item/commandExecution/requestApproval")
	if ap["threadId"] != childID || ap["turnId"] != childTurn || ap["itemId"] != "call-child" {
		t.Fatalf("sub-agent approval must name the sub-agent: %v (child %s turn %s)", ap, childID, childTurn)
	}
	c.notification("thread/status/changed", func(p map[string]any) bool {
		flags, _ := p["status"].(map[string]any)["activeFlags"].([]any)
		return p["threadId"] == childID && len(flags) == 1 && flags[0] == "waitingOnApproval"
	})
	c.reply(id, map[string]any{"decision": "acceptForSession"})
	done := c.notification("item/completed", func(p map[string]any) bool {
		return p["threadId"] == childID && str(p, "item", "type") == "commandExecution"
	})
	if str(done, "item", "status") != "completed" || !fileExists(filepath.Join(f.cwd, "child.txt")) {
		t.Fatalf("approved sub-agent command: %v", done)
	}
	c.close()
}

// TestInterruptedTurnCompletesInterrupted: a turn the client interrupted
// is reported interrupted when it completes, even if the engine ended it
// before it did anything.
func TestInterruptedTurnCompletesInterrupted(t *testing.T) {
	blocked := make(chan struct{}, 1)
	f := newFixture(t, blockingScript(blocked))
	var out strings.Builder
	s := &Server{
		opts: Options{Home: f.home, NewEngine: f.factory, Version: "test"}, ctx: context.Background(),
		out: &writer{w: &out}, threads: map[protocol.ThreadID]*thread{}, approvals: map[int64]*pendingApproval{},
	}
	sess, root, err := s.openSession(ThreadConfig{}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sess.core.StopEvents()
		shutdown(t, sess.eng)
	}()
	id := root.info.ID
	// The engine's side, replayed: turn A starts, the client interrupts it,
	// it ends.
	s.onEvent(sess, protocol.Event{Type: protocol.EventTurnStarted, ThreadID: id, TurnID: "turn-a"})
	if _, rerr := s.turnInterrupt(protocol.AppTurnInterruptParams{ThreadID: string(id), TurnID: "turn-a"}); rerr != nil {
		t.Fatal(rerr)
	}
	s.onEvent(sess, protocol.Event{Type: protocol.EventTurnCompleted, ThreadID: id, TurnID: "turn-a"})
	st := protocol.Completed("", false)
	s.onEvent(sess, protocol.Event{Type: protocol.EventStatusChanged, ThreadID: id, Status: &st})
	if !strings.Contains(out.String(), `"id":"turn-a"`) || !strings.Contains(out.String(), `"status":"interrupted"`) {
		t.Fatalf("turn A must complete interrupted:\n%s", out.String())
	}
}

// TestResumeSessionOfAnotherFrontEnd: a session the engine ran for another
// front end (the TUI, grove exec) resumes in the app-server with its turns.
func TestResumeSessionOfAnotherFrontEnd(t *testing.T) {
	f := newFixture(t, treeScript)
	eng, err := f.factory(context.Background(), ThreadConfig{})
	if err != nil {
		t.Fatal(err)
	}
	events, stop := eng.Subscribe()
	id, err := eng.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.SubmitText(id, "hello from the tui"); err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if ev.Type == protocol.EventTurnCompleted && ev.ThreadID == id {
			break
		}
	}
	stop()
	shutdown(t, eng)

	c := f.start(t)
	c.initialize()
	list := c.result("thread/list", map[string]any{})
	if data, _ := list["data"].([]any); len(data) != 1 || str(data[0].(map[string]any), "preview") != "hello from the tui" {
		t.Fatalf("thread/list: %v", list)
	}
	res := c.result("thread/resume", map[string]any{"threadId": string(id)})
	turns, _ := res["thread"].(map[string]any)["turns"].([]any)
	if len(turns) != 1 || !strings.Contains(mustJSON(turns[0]), "hello from the tui") || !strings.Contains(mustJSON(turns[0]), `"text":"ok"`) {
		t.Fatalf("resumed turns: %v", turns)
	}
	c.close()
}

// TestEOFWithPendingApproval: the client goes away while an approval waits;
// the server shuts the session down and returns (goleak checks the rest).
func TestEOFWithPendingApproval(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"approvalPolicy": "untrusted"}), "thread", "id")
	c.result("turn/start", turnInput(root, "write late"))
	c.serverRequest("item/commandExecution/requestApproval")
	c.close()
	if fileExists(filepath.Join(f.cwd, "late.txt")) {
		t.Fatal("an unanswered command ran")
	}
}

// TestTurnStartAnsweredWithItsOwnTurn: turn/start is answered with the turn
// that took its input (the engine echoes the input's client id), not with
// whichever turn starts next on the thread.
func TestTurnStartAnsweredWithItsOwnTurn(t *testing.T) {
	f := newFixture(t, blockingScript(make(chan struct{}, 1)))
	var out strings.Builder
	s := &Server{
		opts: Options{Home: f.home, NewEngine: f.factory, Version: "test"}, ctx: context.Background(),
		out: &writer{w: &out}, threads: map[protocol.ThreadID]*thread{}, approvals: map[int64]*pendingApproval{},
	}
	sess, root, err := s.openSession(ThreadConfig{}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sess.core.StopEvents()
		shutdown(t, sess.eng)
	}()
	id := root.info.ID
	if _, rerr := s.turnStart(json.RawMessage(`41`), protocol.AppTurnStartParams{ThreadID: string(id), Input: []protocol.AppUserInput{{Type: "text", Text: "write a"}}}); rerr != nil {
		t.Fatal(rerr)
	}
	// A turn the request did not start (another input, replayed) is not its answer.
	s.onEvent(sess, protocol.Event{Type: protocol.EventTurnStarted, ThreadID: id, TurnID: "someone-elses"})
	if strings.Contains(out.String(), `"id":41`) {
		t.Fatalf("turn/start answered with another turn:\n%s", out.String())
	}
	for ev := range sess.events {
		if ev.Type == protocol.EventTurnStarted && ev.ThreadID == id {
			s.onEvent(sess, ev)
			if !strings.Contains(out.String(), `"id":41`) || !strings.Contains(out.String(), `"id":"`+ev.TurnID+`"`) {
				t.Fatalf("turn/start not answered with turn %s:\n%s", ev.TurnID, out.String())
			}
			return
		}
	}
	t.Fatal("no turn started")
}

// TestCommandOutputStreamsAsOutputDelta: live exec output becomes
// item/commandExecution/outputDelta while the command runs, and is not
// sent a second time when it ends.
func TestCommandOutputStreamsAsOutputDelta(t *testing.T) {
	f := newFixture(t, blockingScript(make(chan struct{}, 1)))
	var out strings.Builder
	s := &Server{
		opts: Options{Home: f.home, NewEngine: f.factory, Version: "test"}, ctx: context.Background(),
		out: &writer{w: &out}, threads: map[protocol.ThreadID]*thread{}, approvals: map[int64]*pendingApproval{},
	}
	sess, root, err := s.openSession(ThreadConfig{}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sess.core.StopEvents()
		shutdown(t, sess.eng)
	}()
	id := root.info.ID
	tool := &protocol.ToolCall{CallID: "c9", Name: "exec_command", Arguments: `{"cmd":"make"}`}
	s.onEvent(sess, protocol.Event{Type: protocol.EventTurnStarted, ThreadID: id, TurnID: "t1"})
	s.onEvent(sess, protocol.Event{Type: protocol.EventToolCallBegin, ThreadID: id, TurnID: "t1", Tool: tool})
	s.onEvent(sess, protocol.Event{Type: protocol.EventExecOutputDelta, ThreadID: id, TurnID: "t1", Tool: tool, Delta: "building…\n"})
	if !strings.Contains(out.String(), `"method":"item/commandExecution/outputDelta"`) || !strings.Contains(out.String(), `"delta":"building…\n"`) {
		t.Fatalf("no live outputDelta:\n%s", out.String())
	}
	code := 0
	end := *tool
	end.Output, end.ExitCode = "Exit code: 0\nWall time: 1.00 seconds\nOutput:\nbuilding…\n", &code
	s.onEvent(sess, protocol.Event{Type: protocol.EventToolCallEnd, ThreadID: id, TurnID: "t1", Tool: &end})
	if n := strings.Count(out.String(), `"method":"item/commandExecution/outputDelta"`); n != 1 {
		t.Fatalf("%d outputDelta notifications, want the live one only:\n%s", n, out.String())
	}
}
