package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if home := os.Getenv("GROVE_ACP_TEST_AGENT_HOME"); home != "" {
		// The test binary as an agent process, for the TypeScript client.
		f := &fixture{home: home, cwd: os.Getenv("GROVE_ACP_TEST_AGENT_CWD"), blocked: make(chan struct{}, 1)}
		if err := Serve(context.Background(), os.Stdin, os.Stdout, Options{NewEngine: f.factory, Version: "test"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// schemaFile is ACP's JSON Schema (see testdata/…/README.md).
const schemaFile = "testdata/acp-sdk-0.13.0/schema.json"

var acpSchemas struct {
	once sync.Once
	err  error
	defs map[string]*jsonschema.Schema
}

// acpSchema compiles one $defs entry of the schema, on first use.
func acpSchema(t *testing.T, def string) *jsonschema.Schema {
	t.Helper()
	acpSchemas.once.Do(func() {
		acpSchemas.defs = map[string]*jsonschema.Schema{}
		abs, err := filepath.Abs(schemaFile)
		if err != nil {
			acpSchemas.err = err
			return
		}
		c := jsonschema.NewCompiler()
		for _, d := range []string{"SessionNotification", "RequestPermissionRequest", "InitializeResponse", "NewSessionResponse", "LoadSessionResponse", "PromptResponse", "Error", "ListSessionsResponse", "SetSessionModeResponse"} {
			sch, err := c.Compile(abs + "#/$defs/" + d)
			if err != nil {
				acpSchemas.err = fmt.Errorf("compile %s: %w", d, err)
				return
			}
			acpSchemas.defs[d] = sch
		}
	})
	if acpSchemas.err != nil {
		t.Fatal(acpSchemas.err)
	}
	return acpSchemas.defs[def]
}

var responseDefs = map[string]string{
	"initialize": "InitializeResponse", "session/new": "NewSessionResponse",
	"session/load": "LoadSessionResponse", "session/prompt": "PromptResponse",
	"session/list": "ListSessionsResponse", "session/set_mode": "SetSessionModeResponse",
}

// wireCheck validates every message the agent sends against the schema;
// it learns request methods from the client's side of the wire.
type wireCheck struct {
	t       *testing.T
	mu      sync.Mutex
	methods map[string]string
	checked int
}

func (w *wireCheck) clientLine(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method != "" {
		w.mu.Lock()
		w.methods[string(m.ID)] = m.Method
		w.mu.Unlock()
	}
}

func (w *wireCheck) agentLine(line []byte) {
	t := w.t
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Errorf("agent wrote a line that is not JSON: %s", line)
		return
	}
	var def string
	doc := m.Params
	switch {
	case m.Method == "session/update":
		def = "SessionNotification"
	case m.Method == "session/request_permission":
		def = "RequestPermissionRequest"
	case m.Method == "$/cancel_request":
		// The SDK withdraws a request whose context ended (ACP's cancel
		// request notification, in its unstable schema): it names one.
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
			t.Errorf("agent sent a cancel naming no request: %s", line)
		}
		return
	case m.Method != "":
		t.Errorf("agent sent an unexpected method: %s", line)
		return
	case len(m.Error) > 0:
		def, doc = "Error", m.Error
	default:
		w.mu.Lock()
		method := w.methods[string(m.ID)]
		w.mu.Unlock()
		def, doc = responseDefs[method], m.Result
		if def == "" {
			return // a response to a method the test does not check
		}
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(doc)))
	if err != nil {
		t.Errorf("unmarshal %s: %v", doc, err)
		return
	}
	if err := acpSchema(t, def).Validate(inst); err != nil {
		t.Errorf("agent message does not match ACP %s:\n%s\n%v", def, line, err)
	}
	w.mu.Lock()
	w.checked++
	w.mu.Unlock()
}

// tap copies r to w, handing each line to see.
func tap(r io.Reader, w *io.PipeWriter, see func([]byte)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := append(sc.Bytes(), '\n')
		see(line[:len(line)-1])
		if _, err := w.Write(line); err != nil {
			break
		}
	}
	_ = w.CloseWithError(sc.Err())
}

// testClient is an ACP client that records updates and answers
// permission requests with the option the test chose.
type testClient struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	answer  string // option id to select; "" cancels; answerNever waits
	asked   []sdk.RequestPermissionRequest
	changed chan struct{}
	// waiting and withdrawn receive a request answerNever holds open, when
	// it is asked and when the agent withdraws it.
	waiting, withdrawn chan sdk.RequestPermissionRequest
}

// answerNever makes the test client leave permission requests unanswered.
const answerNever = "never"

func (c *testClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	if c.answer == answerNever {
		// A person who has not answered yet: the request stays open until
		// the agent withdraws it ($/cancel_request ends ctx).
		c.mu.Unlock()
		c.waiting <- p
		<-ctx.Done()
		c.withdrawn <- p
		c.mu.Lock()
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
	if c.answer == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(c.answer))}, nil
}

func (c *testClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return nil
}

func (c *testClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("not supported")
}
func (c *testClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("not supported")
}
func (c *testClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("not supported")
}
func (c *testClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("not supported")
}
func (c *testClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("not supported")
}
func (c *testClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("not supported")
}
func (c *testClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("not supported")
}

func (c *testClient) setAnswer(a string) {
	c.mu.Lock()
	c.answer = a
	c.mu.Unlock()
}

// waitFor waits until an update matches.
func (c *testClient) waitFor(t *testing.T, what string, match func(sdk.SessionUpdate) bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		for _, u := range c.updates {
			if match(u.Update) {
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		select {
		case <-c.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no update %s within 60s", what)
		}
	}
}

func (c *testClient) snapshot() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...)
}

// script: "write NAME" runs a command writing NAME.txt, "spawn" spawns a
// child and waits for it, "block" signals f.blocked and runs until
// interrupted.
func (f *fixture) script(ctx context.Context, req model.Request) (model.Response, error) {
	f.mu.Lock()
	f.models = append(f.models, req.Model)
	f.mu.Unlock()
	var prompt string
	var outs []string
	for _, it := range req.Items {
		switch {
		case it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent):
			prompt, outs = it.Content, nil
		case it.Type == protocol.ItemFunctionCallOutput:
			outs = append(outs, it.Output)
		}
	}
	call := func(id, name string, args any) (model.Response, error) {
		b, _ := json.Marshal(args)
		return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: id, Name: name, Arguments: string(b)}}}, nil
	}
	switch {
	case strings.Contains(prompt, "child task"):
		return model.Response{Text: "child finished"}, nil
	case strings.HasPrefix(prompt, "write "):
		name := strings.TrimPrefix(prompt, "write ")
		if len(outs) == 0 {
			return call("call-"+name, "exec_command", map[string]any{"cmd": "echo hi > " + name + ".txt && cat " + name + ".txt"})
		}
		return model.Response{Text: "wrote " + name}, nil
	case prompt == "spawn":
		switch len(outs) {
		case 0:
			return call("call-spawn", "spawn_agent", map[string]any{"message": "child task"})
		case 1:
			var r struct {
				AgentID string `json:"agent_id"`
			}
			_ = json.Unmarshal([]byte(outs[0]), &r)
			return call("call-wait", "wait", map[string]any{"ids": []string{r.AgentID}})
		}
		return model.Response{Text: "children done"}, nil
	case strings.HasPrefix(prompt, "patch "):
		name := strings.TrimPrefix(prompt, "patch ")
		if len(outs) == 0 {
			return call("call-patch", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: " + name + ".md\n+hello\n*** End Patch\n"})
		}
		return model.Response{Text: "patched"}, nil
	case prompt == "fail":
		if len(outs) == 0 {
			return call("call-fail", "exec_command", map[string]any{"cmd": "echo boom; exit 3"})
		}
		return model.Response{Text: "it failed"}, nil
	case prompt == "sleep":
		if len(outs) == 0 {
			return call("call-sleep", "exec_command", map[string]any{"cmd": "sleep 60"})
		}
		return model.Response{Text: "slept"}, nil
	case prompt == "block":
		select {
		case f.blocked <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	return model.Response{Text: "ok"}, nil
}

type fixture struct {
	home, cwd string
	blocked   chan struct{}
	mu        sync.Mutex
	mcp       map[string]config.MCPServer // the last session's client MCP servers
	models    []string                    // the model of each model call
}

func (f *fixture) factory(ctx context.Context, cwd string, mcp map[string]config.MCPServer) (*engine.Engine, error) {
	f.mu.Lock()
	f.mcp = mcp
	f.mu.Unlock()
	if cwd == "" {
		cwd = f.cwd
	}
	return engine.New(ctx, engine.Options{
		Home: f.home, Client: model.NewScripted("scripted", f.script), Provider: "scripted", Model: "scripted-model",
		Cwd: cwd, Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalUntrusted,
		// The collab tools are a surface of their own (seed 000).
		Surfaces: []engine.SurfaceFactory{surface.CollabFactory},
	})
}

// conn is a Go SDK client connected to an in-process grove acp.
type conn struct {
	*sdk.ClientSideConnection
	client *testClient
	stop   func()
	check  *wireCheck
}

func (f *fixture) connect(t *testing.T) *conn {
	t.Helper()
	check := &wireCheck{t: t, methods: map[string]string{}}
	toAgentR, toAgentW := io.Pipe()     // client → tap → agent
	agentInR, agentInW := io.Pipe()     // tap output, read by the agent
	fromAgentR, fromAgentW := io.Pipe() // agent → tap → client
	clientInR, clientInW := io.Pipe()   // tap output, read by the client
	var taps sync.WaitGroup
	taps.Add(2)
	go func() { defer taps.Done(); tap(toAgentR, agentInW, check.clientLine) }()
	go func() { defer taps.Done(); tap(fromAgentR, clientInW, check.agentLine) }()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), agentInR, fromAgentW, Options{NewEngine: f.factory, Version: "test", ShutdownGrace: 20 * time.Second,
			Home: f.home, ListModels: func(context.Context) []string { return []string{"listed-model"} }})
		_ = fromAgentW.Close()
	}()
	tc := &testClient{changed: make(chan struct{}, 1), waiting: make(chan sdk.RequestPermissionRequest, 1), withdrawn: make(chan sdk.RequestPermissionRequest, 1)}
	cs := sdk.NewClientSideConnection(tc, toAgentW, clientInR)
	return &conn{ClientSideConnection: cs, client: tc, check: check, stop: func() {
		_ = toAgentW.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		_ = agentInR.Close()
		taps.Wait()
		_ = clientInR.Close()
		<-cs.Done()
	}}
}

func textOf(u sdk.SessionUpdate) string {
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		return u.AgentMessageChunk.Content.Text.Text
	case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
		return u.UserMessageChunk.Content.Text.Text
	}
	return ""
}

func prompt(t *testing.T, c *conn, sid sdk.SessionId, text string) sdk.PromptResponse {
	t.Helper()
	r, err := c.Prompt(context.Background(), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return r
}

// TestACPSession drives grove acp with the Go SDK's client: a new session,
// a command that needs permission (granted, then denied), a sub-agent shown
// as a tool call, a cancel mid-turn, then session/load on a new connection.
func TestACPSession(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	c := f.connect(t)
	ctx := context.Background()
	init, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize: %v %+v", err, init)
	}
	if _, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []sdk.McpServer{}}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("a relative cwd must be refused: %v", err)
	}
	if _, err := c.Prompt(ctx, sdk.PromptRequest{SessionId: "no-such-session", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err == nil {
		t.Fatal("a prompt to an unknown session must fail")
	}
	ns, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	sid := ns.SessionId

	c.client.setAnswer(string(protocol.DecisionApproved))
	if r := prompt(t, c, sid, "write a"); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %s", r.StopReason)
	}
	if !fileExists(filepath.Join(f.cwd, "a.txt")) {
		t.Fatal("granted command did not run")
	}
	c.client.waitFor(t, "command completed", func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call-a" && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted
	})
	// Its output was shown while it ran (an in-progress update with it).
	c.client.waitFor(t, "live command output", func(u sdk.SessionUpdate) bool {
		tu := u.ToolCallUpdate
		if tu == nil || tu.ToolCallId != "call-a" || tu.Status == nil || *tu.Status != sdk.ToolCallStatusInProgress {
			return false
		}
		for _, c := range tu.Content {
			if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "hi\n") {
				return true
			}
		}
		return false
	})
	c.client.waitFor(t, "agent message", func(u sdk.SessionUpdate) bool { return strings.Contains(textOf(u), "wrote") })

	c.client.setAnswer(string(protocol.DecisionDenied))
	prompt(t, c, sid, "write b")
	if fileExists(filepath.Join(f.cwd, "b.txt")) {
		t.Fatal("denied command ran")
	}
	c.client.waitFor(t, "command failed", func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call-b" && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusFailed
	})
	c.client.mu.Lock()
	asked := len(c.client.asked)
	opts := c.client.asked[0].Options
	c.client.mu.Unlock()
	if asked != 2 || len(opts) != 3 || opts[0].Kind != sdk.PermissionOptionKindAllowOnce || opts[1].Kind != sdk.PermissionOptionKindAllowAlways || opts[2].Kind != sdk.PermissionOptionKindRejectOnce {
		t.Fatalf("permission requests: %d, options %+v", asked, opts)
	}

	// apply_patch shows as an edit with the file's diff.
	c.client.setAnswer(string(protocol.DecisionApprovedForSession))
	prompt(t, c, sid, "patch notes")
	c.client.waitFor(t, "patch diff", func(u sdk.SessionUpdate) bool {
		tu := u.ToolCallUpdate
		if tu == nil || tu.ToolCallId != "call-patch" || tu.Status == nil || *tu.Status != sdk.ToolCallStatusCompleted {
			return false
		}
		for _, ct := range tu.Content {
			if ct.Diff != nil && ct.Diff.Path == filepath.Join(f.cwd, "notes.md") && ct.Diff.NewText == "hello\n" {
				return true
			}
		}
		return false
	})
	c.client.waitFor(t, "edit tool call", func(u sdk.SessionUpdate) bool {
		return u.ToolCall != nil && u.ToolCall.ToolCallId == "call-patch" && u.ToolCall.Kind == sdk.ToolKindEdit
	})

	// A sub-agent is a tool call of its parent: "role: task", completed
	// with the child's final message.
	prompt(t, c, sid, "spawn")
	c.client.waitFor(t, "sub-agent title", func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call-spawn" && u.ToolCallUpdate.Title != nil && *u.ToolCallUpdate.Title == "default: child task"
	})
	c.client.waitFor(t, "sub-agent final", func(u sdk.SessionUpdate) bool {
		tu := u.ToolCallUpdate
		if tu == nil || tu.ToolCallId != "call-spawn" || tu.Status == nil || *tu.Status != sdk.ToolCallStatusCompleted {
			return false
		}
		for _, ct := range tu.Content {
			if ct.Content != nil && ct.Content.Content.Text != nil && strings.Contains(ct.Content.Content.Text.Text, "child finished") {
				return true
			}
		}
		return false
	})

	// A command that exits non-zero.
	c.client.setAnswer(string(protocol.DecisionApproved))
	prompt(t, c, sid, "fail")

	// Cancel mid-turn.
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		r, err := c.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("block")}})
		if err != nil {
			t.Errorf("blocked prompt: %v", err)
		}
		done <- r
	}()
	select {
	case <-f.blocked: // the turn is in the model call
	case <-time.After(60 * time.Second):
		t.Fatal("the blocking turn never started")
	}
	if err := c.Cancel(ctx, sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt stop reason %q", r.StopReason)
	}
	c.stop()

	// session/load on a new connection replays the conversation.
	c = f.connect(t)
	if _, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sid, Cwd: f.cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("load: %v", err)
	}
	var replay []string
	for _, n := range c.client.snapshot() {
		if s := textOf(n.Update); s != "" {
			replay = append(replay, s)
		}
	}
	if got := strings.Join(replay, "|"); !strings.Contains(got, "write a|wrote a") || !strings.Contains(got, "spawn") {
		t.Fatalf("replayed conversation: %s", got)
	}
	// Each tool call replays with the outcome it had.
	outcome := map[sdk.ToolCallId]sdk.SessionUpdateToolCall{}
	for _, n := range c.client.snapshot() {
		if tc := n.Update.ToolCall; tc != nil {
			outcome[tc.ToolCallId] = *tc
		}
	}
	for id, want := range map[sdk.ToolCallId]sdk.ToolCallStatus{
		"call-a": sdk.ToolCallStatusCompleted, "call-b": sdk.ToolCallStatusFailed, "call-fail": sdk.ToolCallStatusFailed,
		"call-patch": sdk.ToolCallStatusCompleted, "call-spawn": sdk.ToolCallStatusCompleted,
	} {
		if got, ok := outcome[id]; !ok || got.Status != want {
			t.Errorf("replayed %s: status %q, want %q (%+v)", id, got.Status, want, got)
		}
	}
	if raw, _ := json.Marshal(outcome["call-fail"].RawOutput); !strings.Contains(string(raw), `"exit_code":3`) || !strings.Contains(string(raw), "boom") {
		t.Errorf("replayed failed command: rawOutput %s, want its exit code and output", raw)
	}
	if raw, _ := json.Marshal(outcome["call-a"].RawOutput); !strings.Contains(string(raw), `"exit_code":0`) {
		t.Errorf("replayed command: rawOutput %s, want exit code 0", raw)
	}
	c.client.setAnswer(string(protocol.DecisionApproved))
	prompt(t, c, sid, "write c")
	if !fileExists(filepath.Join(f.cwd, "c.txt")) {
		t.Fatal("loaded session did not run its prompt")
	}
	c.stop()
	if c.check.checked == 0 {
		t.Fatal("no message was validated")
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestACPWithTypeScriptClient drives grove acp with the official TypeScript
// client (@agentclientprotocol/sdk): permission granted and denied, cancel
// mid-turn, session/load. It needs node and the SDK installed, e.g.
//
//	npm install --prefix /some/dir @agentclientprotocol/sdk@2.4.0 zod@4
//	GROVE_ACP_NODE_MODULES=/some/dir/node_modules go test ./cmd/grove/acp/
func TestACPWithTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: the TypeScript ACP client test needs node")
	}
	modules := os.Getenv("GROVE_ACP_NODE_MODULES")
	if modules == "" || !fileExists(filepath.Join(modules, "@agentclientprotocol", "sdk", "package.json")) {
		t.Skip("set GROVE_ACP_NODE_MODULES to a node_modules holding @agentclientprotocol/sdk (npm install @agentclientprotocol/sdk@2.4.0 zod@4) to run this test")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The script resolves the SDK from a node_modules next to it.
	dir := t.TempDir()
	script, err := os.ReadFile("testdata/ts-client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ts-client.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "ts-client.mjs"), self, cwd)
	cmd.Env = append(os.Environ(), "GROVE_ACP_TEST_AGENT_HOME="+t.TempDir(), "GROVE_ACP_TEST_AGENT_CWD="+cwd)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
}

// TestCancelBeforeTheTurnStartsEndsThePrompt: a cancel that lands before
// the engine starts the prompt's turn leaves no turn at all (the thread
// just becomes interrupted, its input kept with no turn run for it); the
// final status alone then ends the prompt instead of leaving it hanging.
func TestCancelBeforeTheTurnStartsEndsThePrompt(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	eng, err := f.factory(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	events, stop := eng.Subscribe()
	root, err := eng.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		stop()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
	}()
	s := newSession(&agent{ctx: context.Background()}, eng, root, events, stop)
	end := make(chan protocol.AgentStatus, 1)
	s.turnEnd, s.cancelling = end, true
	st := protocol.Interrupted()
	s.onEvent(protocol.Event{Type: protocol.EventStatusChanged, ThreadID: root, Status: &st})
	select {
	case got := <-end:
		if got.Kind != protocol.StatusInterrupted {
			t.Fatalf("prompt ended with %v", got)
		}
	default:
		t.Fatal("the cancelled prompt did not end on the interrupted status")
	}
}

// TestEventsWithoutTheirPayloadAreDropped: events lacking the payload their
// type needs, for the root and for a sub-agent, are dropped instead of
// dereferenced; a good status after them still ends the prompt.
func TestEventsWithoutTheirPayloadAreDropped(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	eng, err := f.factory(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	events, stop := eng.Subscribe()
	root, err := eng.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		stop()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
	}()
	s := newSession(&agent{ctx: context.Background()}, eng, root, events, stop)
	end := make(chan protocol.AgentStatus, 1)
	s.turnEnd, s.cancelling = end, true
	for _, thread := range []protocol.ThreadID{root, "child"} {
		for _, typ := range []protocol.EventType{
			protocol.EventThreadStarted, protocol.EventStatusChanged, protocol.EventToolCallBegin,
			protocol.EventToolCallEnd, protocol.EventExecOutputDelta, protocol.EventPlanUpdated,
			protocol.EventApprovalRequested, "no_such_event",
		} {
			s.onEvent(protocol.Event{Type: typ, ThreadID: thread})
		}
	}
	select {
	case got := <-end:
		t.Fatalf("a status_changed without status ended the prompt with %v", got)
	default:
	}
	s.onEvent(protocol.NewEvent(root, "", protocol.StatusChangedMsg{Status: protocol.Interrupted()}))
	select {
	case got := <-end:
		if got.Kind != protocol.StatusInterrupted {
			t.Fatalf("prompt ended with %v", got)
		}
	default:
		t.Fatal("the status after the bad events did not end the prompt")
	}
}
