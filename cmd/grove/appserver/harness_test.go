package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}

// schemaDir holds Codex 0.169's app-server schema bundle, made with
// `npx -y @openai/codex@0.169.0 app-server generate-json-schema --out DIR`
// (the files the tests need, copied unchanged).
const schemaDir = "testdata/codex-0.169.0"

// schemas compiles the bundle's files on first use. Notifications and
// server requests are checked against the branch of their method (the
// params' definition), which names the mismatch precisely.
type schemas struct {
	once     sync.Once
	err      error
	byID     map[string]*jsonschema.Schema
	byMethod map[string]*jsonschema.Schema // "ServerNotification.json:thread/started" → params schema
}

var codexSchemas schemas

func (s *schemas) load() {
	s.byID = map[string]*jsonschema.Schema{}
	s.byMethod = map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	defer func() {
		for k := range groveOnly {
			if s.err == nil && s.byMethod["ServerNotification.json:"+k] == nil && s.byMethod["grove:"+k] == nil {
				s.err = fmt.Errorf("no schema for grove-only method %s", k)
			}
		}
	}()
	for _, f := range []string{
		"JSONRPCError.json", "v1/InitializeResponse.json", "v2/ThreadStartResponse.json", "v2/ThreadResumeResponse.json",
		"v2/ThreadListResponse.json", "v2/ThreadReadResponse.json", "v2/TurnStartResponse.json",
		"v2/TurnInterruptResponse.json", "v2/GetAccountResponse.json", "v2/ConfigReadResponse.json",
		"v2/ModelListResponse.json", "v2/ListMcpServerStatusResponse.json", "v2/ConfigWriteResponse.json",
	} {
		abs, err := filepath.Abs(filepath.Join(schemaDir, f))
		if err != nil {
			s.err = err
			return
		}
		sch, err := c.Compile(abs)
		if err != nil {
			s.err = fmt.Errorf("compile %s: %w", f, err)
			return
		}
		s.byID[f] = sch
	}
	// skills/list is newer than the 0.169 bundle (testdata/codex-skills/README.md).
	skillsSchema, _ := filepath.Abs("testdata/codex-skills/SkillsListResponse.json")
	skillsSch, err := c.Compile(skillsSchema)
	if err != nil {
		s.err = fmt.Errorf("compile %s: %w", skillsSchema, err)
		return
	}
	s.byID["v2/SkillsListResponse.json"] = skillsSch
	ext, _ := filepath.Abs("testdata/grove-extensions.json")
	for key, def := range map[string]string{
		"ServerNotification.json:thread/note/updated": "ThreadNoteUpdatedNotification",
		"grove:thread/note/set":                       "ThreadNoteSetResponse",
		// Seed 001's inbox methods and codex/event notifications.
		"grove:createSubagent":  "SubagentCreated",
		"grove:listSubagents":   "SubagentsListResponse",
		"grove:checkInbox":      "InboxResponse",
		"grove:replyToSubagent": "SubagentReplySuccess",
		"grove:endSubagent":     "SubagentEnded",
		"ServerNotification.json:codex/event/subagent_created":        "SubagentCreatedNotification",
		"ServerNotification.json:codex/event/subagents_list_response": "SubagentsListResponseNotification",
		"ServerNotification.json:codex/event/inbox_response":          "InboxResponseNotification",
		"ServerNotification.json:codex/event/subagent_reply_success":  "SubagentReplySuccessNotification",
		"ServerNotification.json:codex/event/subagent_ended":          "SubagentEndedNotification",
		// Seed 004's activity events.
		"ServerNotification.json:codex/event/subagent_activity": "SubagentActivityNotification",
	} {
		sch, err := c.Compile(ext + "#/definitions/" + def)
		if err != nil {
			s.err = fmt.Errorf("compile grove extensions %s: %w", def, err)
			return
		}
		s.byMethod[key] = sch
	}
	// thread/turns/list's response schema is not in the 0.169 bundle; its
	// turns are 0.169's Turn (ThreadTurnsListResponse {data: Turn[],
	// nextCursor, backwardsCursor} in codex-rs/app-server-protocol).
	readAbs, _ := filepath.Abs(filepath.Join(schemaDir, "v2/ThreadReadResponse.json"))
	turnSch, err := c.Compile(readAbs + "#/definitions/Turn")
	if err != nil {
		s.err = fmt.Errorf("compile Turn: %w", err)
		return
	}
	s.byID["Turn"] = turnSch
	abs, _ := filepath.Abs(filepath.Join(schemaDir, "JSONRPCError.json"))
	sch, err := c.Compile(abs + "#/definitions/JSONRPCErrorError")
	if err != nil {
		s.err = err
		return
	}
	s.byID["JSONRPCErrorError"] = sch
	for _, f := range []string{"ServerNotification.json", "ServerRequest.json"} {
		abs, _ := filepath.Abs(filepath.Join(schemaDir, f))
		b, err := os.ReadFile(abs)
		if err != nil {
			s.err = err
			return
		}
		var doc struct {
			OneOf []struct {
				Properties struct {
					Method struct {
						Enum []string `json:"enum"`
					} `json:"method"`
					Params struct {
						Ref string `json:"$ref"`
					} `json:"params"`
				} `json:"properties"`
			} `json:"oneOf"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			s.err = fmt.Errorf("read %s: %w", f, err)
			return
		}
		for _, v := range doc.OneOf {
			if len(v.Properties.Method.Enum) != 1 || v.Properties.Params.Ref == "" {
				continue
			}
			sch, err := c.Compile(abs + v.Properties.Params.Ref)
			if err != nil {
				s.err = fmt.Errorf("compile %s %s: %w", f, v.Properties.Params.Ref, err)
				return
			}
			s.byMethod[f+":"+v.Properties.Method.Enum[0]] = sch
		}
	}
}

func (s *schemas) get(t *testing.T, key string) *jsonschema.Schema {
	t.Helper()
	s.once.Do(s.load)
	if s.err != nil {
		t.Fatal(s.err)
	}
	sch := s.byID[key]
	if sch == nil {
		sch = s.byMethod[key]
	}
	if sch == nil {
		t.Errorf("Codex 0.169 has no %s", key)
	}
	return sch
}

// responseSchemas names the schema of each Codex method's result.
var responseSchemas = map[string]string{
	"initialize":    "v1/InitializeResponse.json",
	"thread/start":  "v2/ThreadStartResponse.json",
	"thread/resume": "v2/ThreadResumeResponse.json",
	// ThreadForkResponse has ThreadStartResponse's fields (v2.rs).
	"thread/fork":    "v2/ThreadStartResponse.json",
	"thread/list":    "v2/ThreadListResponse.json",
	"thread/read":    "v2/ThreadReadResponse.json",
	"turn/start":     "v2/TurnStartResponse.json",
	"turn/interrupt": "v2/TurnInterruptResponse.json",
	"skills/list":    "v2/SkillsListResponse.json",
	// The IDE startup methods.
	"account/read":         "v2/GetAccountResponse.json",
	"config/read":          "v2/ConfigReadResponse.json",
	"config/value/write":   "v2/ConfigWriteResponse.json",
	"config/batchWrite":    "v2/ConfigWriteResponse.json",
	"model/list":           "v2/ModelListResponse.json",
	"mcpServerStatus/list": "v2/ListMcpServerStatusResponse.json",
	// thread/unarchive answers {thread}, ThreadReadResponse's shape.
	"thread/unarchive": "v2/ThreadReadResponse.json",
}

// unvendoredShapes check the Codex methods whose response schema the
// stored Codex sources do not hold (ThreadUnsubscribeResponse
// {status: unsubscribed|notSubscribed|notLoaded} and ThreadArchiveResponse
// {} in codex-rs/app-server-protocol/src/protocol/v2.rs).
var unvendoredShapes = map[string]func(map[string]any) bool{
	"thread/unsubscribe": func(r map[string]any) bool {
		st, _ := r["status"].(string)
		return len(r) == 1 && (st == "unsubscribed" || st == "notSubscribed" || st == "notLoaded")
	},
	"thread/archive": func(r map[string]any) bool { return len(r) == 0 },
	// ReviewStartResponse {turn, reviewThreadId}; the turn is checked as
	// TurnStartResponse's by the test.
	"review/start": func(r map[string]any) bool {
		_, ok := r["reviewThreadId"].(string)
		_, turn := r["turn"].(map[string]any)
		return len(r) == 2 && ok && turn
	},
	// TurnSteerResponse {turnId}.
	"turn/steer": func(r map[string]any) bool { _, ok := r["turnId"].(string); return len(r) == 1 && ok },
}

// emptyResponses are Codex methods whose result is an empty object and
// whose schema the 0.169 bundle in testdata lacks: thread/compact/start
// (ThreadCompactStartResponse {} in
// codex-rs/app-server-protocol/src/protocol/v2.rs).
// thread/name/set too (ThreadSetNameResponse {}).
var emptyResponses = map[string]bool{"thread/compact/start": true, "thread/name/set": true}

// groveOnly are the documented grove additions, absent from Codex's bundle;
// testdata/grove-extensions.json gives their shapes.
var groveOnly = map[string]bool{
	"thread/note/set": true, "thread/note/updated": true,
	"createSubagent": true, "listSubagents": true, "checkInbox": true, "replyToSubagent": true, "endSubagent": true,
	"codex/event/subagent_created": true, "codex/event/subagents_list_response": true, "codex/event/inbox_response": true,
	"codex/event/subagent_reply_success": true, "codex/event/subagent_ended": true, "codex/event/subagent_activity": true,
}

// client drives a server over pipes and validates every line it gets.
type client struct {
	t       *testing.T
	in      *io.PipeWriter
	msgs    chan map[string]any
	done    chan error
	mu      sync.Mutex
	methods map[string]string // request id → method
	nextID  int
	backlog []map[string]any
}

type fixture struct {
	home, cwd string
	script    model.ScriptFunc
	// build, when set, replaces factory as the server's engine factory.
	build EngineFactory
	// tune, when set, adjusts factory's engine options.
	tune func(*engine.Options)
}

func (f *fixture) factory(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
	return f.factoryAt(ctx, cfg, f.home)
}

// factoryAt builds the engine with its store in home.
func (f *fixture) factoryAt(ctx context.Context, cfg ThreadConfig, home string) (*engine.Engine, error) {
	cwd := cfg.Cwd
	if cwd == "" {
		cwd = f.cwd
	}
	mode := cfg.Sandbox
	if mode == "" {
		mode = protocol.SandboxWorkspaceWrite
	}
	m := cfg.Model
	if m == "" {
		m = "scripted-model"
	}
	opts := engine.Options{
		Home: home, Client: model.NewScripted("scripted", f.script), Provider: "scripted",
		Model: m, Cwd: cwd, Sandbox: protocol.SandboxPolicy{Mode: mode, WritableRoots: cfg.RuntimeWorkspaceRoots}, ApprovalPolicy: cfg.ApprovalPolicy,
		// The collab tools are a surface of their own (seed 000).
		Surfaces: []engine.SurfaceFactory{surface.CollabFactory},
	}
	if f.tune != nil {
		f.tune(&opts)
	}
	return engine.New(ctx, opts)
}

func newFixture(t *testing.T, script model.ScriptFunc) *fixture {
	return &fixture{home: t.TempDir(), cwd: t.TempDir(), script: script}
}

// start runs a server on pipes; the returned client's close ends it.
func (f *fixture) start(t *testing.T) *client {
	t.Helper()
	return f.startWith(t, Options{})
}

func (f *fixture) startWith(t *testing.T, opts Options) *client {
	t.Helper()
	opts.Home, opts.NewEngine, opts.Version, opts.ShutdownGrace = f.home, f.factory, "0.1.0-test", 20*time.Second
	if f.build != nil {
		opts.NewEngine = f.build
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, msgs: make(chan map[string]any, 1024), done: make(chan error, 1), methods: map[string]string{}}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		_ = outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.msgs)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Errorf("server wrote a line that is not JSON: %s", line)
				continue
			}
			c.validate(line, m)
			c.msgs <- m
		}
	}()
	return c
}

// validate checks one outgoing line against Codex's schema bundle.
func (c *client) validate(line []byte, m map[string]any) {
	t := c.t
	if _, ok := m["jsonrpc"]; ok {
		t.Errorf("line carries a jsonrpc header, Codex omits it: %s", line)
	}
	method, _ := m["method"].(string)
	_, hasID := m["id"]
	var key string
	part := m
	switch {
	case method != "" && hasID:
		key, part = "ServerRequest.json:"+method, nil
	case method != "":
		key, part = "ServerNotification.json:"+method, nil
	case m["error"] != nil && m["id"] == nil:
		// A parse error: JSON-RPC 2.0 answers with a null id, which Codex
		// (it ignores bad lines) never sends; the error object must match.
		key, part = "JSONRPCErrorError", m["error"].(map[string]any)
	case m["error"] != nil:
		key = "JSONRPCError.json"
	default:
		c.mu.Lock()
		req := c.methods[fmt.Sprint(m["id"])]
		c.mu.Unlock()
		key = responseSchemas[req]
		if groveOnly[req] {
			key = "grove:" + req
		}
		if check := unvendoredShapes[req]; check != nil {
			if r, ok := m["result"].(map[string]any); !ok || !check(r) {
				t.Errorf("%s answered with Codex's shape: %s", req, line)
			}
			return
		}
		if req == "thread/turns/list" {
			c.validateTurnsPage(line, m)
			return
		}
		if emptyResponses[req] {
			if r, ok := m["result"].(map[string]any); !ok || len(r) != 0 {
				t.Errorf("%s answers an empty object in Codex: %s", req, line)
			}
			return
		}
		if key == "" {
			t.Errorf("response to unknown request: %s", line)
			return
		}
		part, _ = m["result"].(map[string]any)
	}
	var doc any = part
	if part == nil {
		doc = m["params"]
	}
	b, _ := json.Marshal(doc)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Errorf("unmarshal %s: %v", b, err)
		return
	}
	sch := codexSchemas.get(t, key)
	if sch == nil {
		return
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("message does not match Codex 0.169 %s:\n%s\n%v", key, line, err)
	}
}

// validateTurnsPage checks a thread/turns/list result: exactly data,
// nextCursor and backwardsCursor (string or null), each turn a 0.169 Turn.
func (c *client) validateTurnsPage(line []byte, m map[string]any) {
	t := c.t
	r, _ := m["result"].(map[string]any)
	data, ok := r["data"].([]any)
	if len(r) != 3 || !ok {
		t.Errorf("thread/turns/list answered with Codex's shape: %s", line)
		return
	}
	for _, k := range []string{"nextCursor", "backwardsCursor"} {
		if v, present := r[k]; !present {
			t.Errorf("thread/turns/list lacks %s: %s", k, line)
		} else if _, isStr := v.(string); v != nil && !isStr {
			t.Errorf("thread/turns/list %s is not a string or null: %s", k, line)
		}
	}
	sch := codexSchemas.get(t, "Turn")
	for _, turn := range data {
		b, _ := json.Marshal(turn)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err == nil {
			err = sch.Validate(inst)
		}
		if err != nil {
			t.Errorf("thread/turns/list turn does not match Codex 0.169 Turn:\n%s\n%v", b, err)
		}
	}
}

func (c *client) writeLine(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, s+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// request sends a request and returns its id.
func (c *client) request(method string, params any) string {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprint(c.nextID)
	c.methods[id] = method
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"id": c.nextID, "method": method, "params": params})
	c.writeLine(string(b))
	return id
}

// next returns the first message (backlog first) that matches.
func (c *client) next(match func(map[string]any) bool, what string) map[string]any {
	c.t.Helper()
	for i, m := range c.backlog {
		if match(m) {
			c.backlog = append(c.backlog[:i], c.backlog[i+1:]...)
			return m
		}
	}
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("server closed its output while waiting for %s", what)
			}
			if match(m) {
				return m
			}
			c.backlog = append(c.backlog, m)
		case <-deadline:
			c.t.Fatalf("no %s within 60s; backlog: %v", what, c.backlog)
		}
	}
}

// call sends a request and waits for its answer (result or error).
func (c *client) call(method string, params any) map[string]any {
	c.t.Helper()
	id := c.request(method, params)
	return c.next(func(m map[string]any) bool { return m["method"] == nil && fmt.Sprint(m["id"]) == id }, "response to "+method)
}

// result is call that expects success.
func (c *client) result(method string, params any) map[string]any {
	c.t.Helper()
	m := c.call(method, params)
	if m["error"] != nil {
		c.t.Fatalf("%s failed: %v", method, m["error"])
	}
	r, _ := m["result"].(map[string]any)
	return r
}

// notification waits for a notification of method whose params match.
func (c *client) notification(method string, match func(p map[string]any) bool) map[string]any {
	c.t.Helper()
	m := c.next(func(m map[string]any) bool {
		if m["method"] != method || m["id"] != nil {
			return false
		}
		p, _ := m["params"].(map[string]any)
		return match == nil || match(p)
	}, "notification "+method)
	p, _ := m["params"].(map[string]any)
	return p
}

// serverRequest waits for a server→client request.
func (c *client) serverRequest(method string) (id any, params map[string]any) {
	c.t.Helper()
	m := c.next(func(m map[string]any) bool { return m["method"] == method && m["id"] != nil }, "request "+method)
	p, _ := m["params"].(map[string]any)
	return m["id"], p
}

func (c *client) reply(id any, result any) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "result": result})
	c.writeLine(string(b))
}

// close ends the input (EOF) and waits for the server to return.
func (c *client) close() {
	c.t.Helper()
	_ = c.in.Close()
	for range c.msgs {
	}
	if err := <-c.done; err != nil {
		c.t.Errorf("Serve: %v", err)
	}
}

func (c *client) initialize() {
	c.t.Helper()
	c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "test", "version": "1"}})
	c.writeLine(`{"method":"initialized"}`)
}

// turnInput is turn/start's input for a text.
func turnInput(threadID, text string) map[string]any {
	return map[string]any{"threadId": threadID, "input": []any{map[string]any{"type": "text", "text": text}}}
}

// lastInput is the latest user or agent message and the tool outputs after it.
func lastInput(items []protocol.Item) (prompt string, outputs []string) {
	for _, it := range items {
		switch {
		case it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent):
			prompt, outputs = it.Content, nil
		case it.Type == protocol.ItemFunctionCallOutput:
			outputs = append(outputs, it.Output)
		}
	}
	return prompt, outputs
}

func toolCall(id, name string, args any) model.ToolCallRequest {
	b, _ := json.Marshal(args)
	return model.ToolCallRequest{CallID: id, Name: name, Arguments: string(b)}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
