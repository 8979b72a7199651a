package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// recorder is a thread's Env for tests: it keeps events and answers
// approvals with a fixed decision.
type recorder struct {
	mu       sync.Mutex
	events   []protocol.Event
	asked    []protocol.ApprovalRequest
	decision protocol.ReviewDecision
}

func (r *recorder) env(policy protocol.ApprovalPolicy, mode protocol.SandboxMode) *tools.Env {
	return &tools.Env{
		CallID: "call-1", Cwd: os.TempDir(), ApprovalPolicy: policy, Sandbox: protocol.SandboxPolicy{Mode: mode},
		Approve: func(_ context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.asked = append(r.asked, req)
			return r.decision, nil
		},
		Emit: func(ev protocol.Event) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.events = append(r.events, ev)
		},
	}
}

func (r *recorder) messages(typ protocol.EventType) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev.Message)
		}
	}
	return out
}

func stdioServer(mode string) config.MCPServer {
	return config.MCPServer{Command: os.Args[0], Env: map[string]string{"GROVE_MCP_TEST_SERVER": mode}}
}

// newRegistry wires a Manager into a registry, as cmd/grove does.
func newRegistry(t *testing.T, servers map[string]config.MCPServer) (*tools.Registry, *Manager) {
	t.Helper()
	m := New(Options{Servers: servers, Cwd: t.TempDir(), Home: t.TempDir()})
	t.Cleanup(func() { _ = m.Close() })
	reg := tools.NewRegistry()
	if err := tools.RegisterCore(reg); err != nil {
		t.Fatal(err)
	}
	reg.AddSource(m)
	return reg, m
}

func specNames(specs []tools.Tool) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Spec().Name)
	}
	return out
}

func TestStdioServerToolsAndCalls(t *testing.T) {
	reg, m := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	rec := &recorder{decision: protocol.DecisionApproved}
	env := rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)

	if got := m.Tools(context.Background(), nil); len(got) != 0 {
		t.Fatalf("a server must not start before an agent needs it; tools: %v", specNames(got))
	}
	if st := m.Status()[0].State; st != StateIdle {
		t.Fatalf("state before use = %s, want idle", st)
	}
	var names []string
	for _, s := range reg.SpecsFor(context.Background(), env, nil) {
		names = append(names, s.Name)
	}
	// Page size 2: all eight tools arrive only if every page was read.
	for _, want := range []string{"mcp__t__echo", "mcp__t__fail", "mcp__t__rich", "mcp__t__big", "mcp__t__slow", "mcp__t__crash", "mcp__t__grow", "exec_command"} {
		if !slices.Contains(names, want) {
			t.Errorf("specs lack %s: %v", want, names)
		}
	}
	// "write.note" has a character providers reject: sanitised, with a hash.
	var sanitized string
	for _, n := range names {
		if strings.HasPrefix(n, "mcp__t__write_note_") {
			sanitized = n
		}
	}
	if sanitized == "" || sanitized != sanitizeName("mcp__t__write.note") {
		t.Fatalf("write.note not offered under its stable sanitised name: %v", names)
	}

	res := reg.Run(context.Background(), env, "mcp__t__echo", rawArgs(t, map[string]string{"text": "hi"}))
	if res.IsError || res.Output != "Echo: hi" {
		t.Fatalf("echo = %+v", res)
	}
	if !strings.Contains(res.Summary, "t › echo") {
		t.Errorf("summary %q does not say server › tool", res.Summary)
	}
	if len(rec.asked) != 0 {
		t.Errorf("a read-only tool asked for approval: %+v", rec.asked)
	}

	// The sanitised name maps back to the server's own name.
	res = reg.Run(context.Background(), env, sanitized, rawArgs(t, map[string]string{"text": "n"}))
	if res.IsError || res.Output != "wrote n" {
		t.Fatalf("write.note via %s = %+v", sanitized, res)
	}
	if len(rec.asked) != 1 || rec.asked[0].Command != sanitized {
		t.Fatalf("a tool that is not read-only must ask under on-request: %+v", rec.asked)
	}

	res = reg.Run(context.Background(), env, "mcp__t__fail", nil)
	if !res.IsError || !strings.Contains(res.Output, "disk is full") {
		t.Fatalf("isError result = %+v, want an error with the server's text", res)
	}

	res = reg.Run(context.Background(), env, "mcp__t__rich", nil)
	for _, want := range []string{"a picture", "[image image/png, 8 bytes"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("rich output lacks %q:\n%s", want, res.Output)
		}
	}
	if len(res.Images) != 1 || res.Images[0] != "data:image/png;base64,iVBORy4uLi4=" {
		t.Errorf("the image must reach the model as an image input: %q", res.Images)
	}
	if strings.Contains(res.Output, `{"width":2}`) {
		t.Errorf("structuredContent sent next to the server's text:\n%s", res.Output)
	}

	res = reg.Run(context.Background(), env, "mcp__t__big", nil)
	if len(res.Output) > DefaultMaxOutput+100 || !strings.HasPrefix(res.Output, "HEAD") || !strings.HasSuffix(res.Output, "TAIL") || !strings.Contains(res.Output, "bytes truncated") {
		t.Fatalf("big output not truncated head+tail: %d bytes", len(res.Output))
	}

	// Arguments are validated against the server's schema before the call.
	res = reg.Run(context.Background(), env, "mcp__t__echo", rawArgs(t, map[string]any{"text": 5}))
	if !res.IsError || !strings.Contains(res.Output, "invalid arguments") {
		t.Fatalf("bad arguments = %+v", res)
	}
}

func TestApprovalPolicyAndDenial(t *testing.T) {
	for _, tc := range []struct {
		policy  protocol.ApprovalPolicy
		trusted bool
		asks    bool
	}{
		{protocol.ApprovalUntrusted, false, true},
		{protocol.ApprovalOnRequest, false, true},
		{protocol.ApprovalOnRequest, true, false},
		{protocol.ApprovalOnFailure, false, false},
		{protocol.ApprovalNever, false, false},
	} {
		tool := &mcpTool{srv: &server{cfg: config.MCPServer{Trusted: tc.trusted}}}
		asks := func() bool {
			env := &tools.Env{ApprovalPolicy: tc.policy}
			g, refused := tool.Gate(context.Background(), env, json.RawMessage(`{}`))
			if refused != nil {
				t.Fatalf("gate refused: %+v", refused)
			}
			return tools.AsksApproval(tc.policy, env.Sandbox, g)
		}
		if got := asks(); got != tc.asks {
			t.Errorf("policy %s trusted %v: asks = %v, want %v", tc.policy, tc.trusted, got, tc.asks)
		}
		tool.readOnly = true
		if asks() {
			t.Errorf("policy %s: a read-only tool asked", tc.policy)
		}
	}

	reg, _ := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	rec := &recorder{decision: protocol.DecisionDenied}
	env := rec.env(protocol.ApprovalUntrusted, protocol.SandboxWorkspaceWrite)
	name := sanitizeName("mcp__t__write.note")
	reg.SpecsFor(context.Background(), env, nil)
	res := reg.Run(context.Background(), env, name, rawArgs(t, map[string]string{"text": "x"}))
	if !res.IsError || !strings.Contains(res.Output, "rejected by user") {
		t.Fatalf("denied call = %+v", res)
	}

	// A read-only agent is not offered tools that may change things, and
	// calling one anyway is refused.
	ro := rec.env(protocol.ApprovalNever, protocol.SandboxReadOnly)
	var offered []string
	for _, s := range reg.SpecsFor(context.Background(), ro, nil) {
		offered = append(offered, s.Name)
	}
	if slices.Contains(offered, name) || !slices.Contains(offered, "mcp__t__echo") {
		t.Fatalf("read-only specs: %v", offered)
	}
	res = reg.Run(context.Background(), ro, name, rawArgs(t, map[string]string{"text": "x"}))
	if !res.IsError || !strings.Contains(res.Output, "read-only") {
		t.Fatalf("read-only call of a writing tool = %+v", res)
	}
}

func TestAllowDenyGlobsSelectMCPTools(t *testing.T) {
	reg, _ := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	env := (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	only := tools.Policy{Allow: []string{"mcp__t__echo"}}.Allowed
	var names []string
	for _, s := range reg.SpecsFor(context.Background(), env, only) {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"mcp__t__echo"}) {
		t.Fatalf("allow mcp__t__echo: specs %v", names)
	}
	res := reg.RunAllowed(context.Background(), env, "mcp__t__rich", nil, only)
	if !res.IsError || !strings.Contains(res.Output, "not available to this agent") {
		t.Fatalf("a tool outside the allow list ran: %+v", res)
	}
	deny := tools.Policy{Deny: []string{"mcp__t__*"}}.Allowed
	for _, s := range reg.SpecsFor(context.Background(), env, deny) {
		if strings.HasPrefix(s.Name, "mcp__") {
			t.Fatalf("deny mcp__t__* still offers %s", s.Name)
		}
	}
}

func TestEnabledAndDisabledTools(t *testing.T) {
	cfg := stdioServer("serve")
	cfg.EnabledTools = []string{"echo", "fail", "rich"}
	cfg.DisabledTools = []string{"fail"}
	_, m := newRegistry(t, map[string]config.MCPServer{"t": cfg})
	got := specNames(m.Tools(context.Background(), (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)))
	if !slices.Equal(got, []string{"mcp__t__echo", "mcp__t__rich"}) {
		t.Fatalf("tools = %v, want echo and rich", got)
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	srv := newTestServer()
	var sawAuth, sawHeader string
	var mu sync.Mutex
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		mu.Lock()
		sawAuth, sawHeader = r.Header.Get("Authorization"), r.Header.Get("X-Team")
		mu.Unlock()
		return srv
	}, nil)
	hs := httptest.NewServer(h)
	defer hs.Close()
	t.Setenv("GROVE_TEST_MCP_TOKEN", "s3cret")
	t.Setenv("GROVE_TEST_TEAM", "blue")
	reg, m := newRegistry(t, map[string]config.MCPServer{"web": {
		URL: hs.URL, BearerTokenEnvVar: "GROVE_TEST_MCP_TOKEN",
		HTTPHeaders: map[string]string{"X-Static": "1"}, EnvHTTPHeaders: map[string]string{"X-Team": "GROVE_TEST_TEAM"},
	}})
	rec := &recorder{}
	env := rec.env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	res := reg.Run(context.Background(), env, "mcp__web__echo", rawArgs(t, map[string]string{"text": "over http"}))
	if res.IsError || res.Output != "Echo: over http" {
		t.Fatalf("echo over HTTP = %+v (status %+v)", res, m.Status())
	}
	mu.Lock()
	auth, team := sawAuth, sawHeader
	mu.Unlock()
	if auth != "Bearer s3cret" || team != "blue" {
		t.Fatalf("headers: Authorization %q, X-Team %q", auth, team)
	}
	_ = m.Close()
}

func TestListChangedRefreshesTools(t *testing.T) {
	reg, m := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	env := (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	changed := m.Changed()
	if res := reg.Run(context.Background(), env, "mcp__t__grow", nil); res.IsError {
		t.Fatalf("grow: %+v", res)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no tools/list_changed notification arrived")
	}
	var names []string
	for _, s := range reg.SpecsFor(context.Background(), env, nil) {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "mcp__t__extra") {
		t.Fatalf("after list_changed the new tool is not offered: %v", names)
	}
	if res := reg.Run(context.Background(), env, "mcp__t__extra", nil); res.Output != "extra!" {
		t.Fatalf("extra = %+v", res)
	}
}

func TestProgressAndCancellation(t *testing.T) {
	reg, _ := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	rec := &recorder{}
	env := rec.env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	mark := filepath.Join(t.TempDir(), "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result, 1)
	go func() { done <- reg.Run(ctx, env, "mcp__t__slow", rawArgs(t, map[string]string{"text": mark})) }()
	// Interrupt once the server has reported progress (the call is running).
	for len(rec.messages(protocol.EventToolProgress)) == 0 {
		select {
		case res := <-done:
			t.Fatalf("slow returned early: %+v", res)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if got := rec.messages(protocol.EventToolProgress)[0]; got != "1/3 warming up" {
		t.Errorf("progress message = %q", got)
	}
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Output, "interrupted") {
		t.Fatalf("interrupted call = %+v", res)
	}
	// The server learns of it (notifications/cancelled): its handler's
	// context ends and it leaves the mark.
	testkit.Eventually(t, "the server to see the cancellation", func() bool {
		_, err := os.Stat(mark)
		return err == nil
	})
}

func TestCrashedServerRestartsOnce(t *testing.T) {
	reg, m := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	rec := &recorder{}
	env := rec.env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	if res := reg.Run(context.Background(), env, "mcp__t__crash", nil); !res.IsError {
		t.Fatalf("a call whose server died must be an error: %+v", res)
	}
	testkit.Eventually(t, "the death to be noticed", func() bool { return m.Status()[0].State == StateIdle })
	res := reg.Run(context.Background(), env, "mcp__t__echo", rawArgs(t, map[string]string{"text": "again"}))
	if res.IsError || res.Output != "Echo: again" {
		t.Fatalf("after one crash the server must restart: %+v", res)
	}
	reg.Run(context.Background(), env, "mcp__t__crash", nil)
	testkit.Eventually(t, "the second death to be final", func() bool { return m.Status()[0].State == StateFailed })
	if got := specNames(m.Tools(context.Background(), env)); len(got) != 0 {
		t.Fatalf("a server that died twice still offers %v", got)
	}
	res = reg.Run(context.Background(), env, "mcp__t__echo", nil)
	if !res.IsError || !strings.Contains(res.Output, "unknown tool") {
		t.Fatalf("echo after the final death = %+v", res)
	}
	warns := strings.Join(rec.messages(protocol.EventWarning), "\n")
	if !strings.Contains(warns, "restarting it on next use") || !strings.Contains(warns, "not restarted") {
		t.Fatalf("warnings:\n%s", warns)
	}
}

func TestFailingServersAreWarningsAndOthersWork(t *testing.T) {
	hang := stdioServer("hang")
	short := 0.5
	hang.StartupTimeoutSec = &short
	reg, m := newRegistry(t, map[string]config.MCPServer{
		"good": stdioServer("serve"),
		"hang": hang,
		"exit": stdioServer("exit"),
		"nope": {Command: filepath.Join(t.TempDir(), "no-such-binary")},
	})
	rec := &recorder{}
	env := rec.env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	var names []string
	for _, s := range reg.SpecsFor(context.Background(), env, nil) {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "mcp__good__echo") {
		t.Fatalf("the good server's tools are missing: %v", names)
	}
	warns := strings.Join(rec.messages(protocol.EventWarning), "\n")
	for _, want := range []string{
		"MCP server hang failed to start: did not answer initialize within 500ms",
		"MCP server exit failed to start", "cannot open its database",
		"MCP server nope failed to start",
	} {
		if !strings.Contains(warns, want) {
			t.Errorf("warnings lack %q:\n%s", want, warns)
		}
	}
	for _, st := range m.Status() {
		if st.Name != "good" && (st.State != StateFailed || st.Error == "") {
			t.Errorf("status of %s = %+v, want failed with an error", st.Name, st)
		}
	}
	// Warnings are published once, not on every request.
	before := len(rec.messages(protocol.EventWarning))
	reg.SpecsFor(context.Background(), env, nil)
	if after := len(rec.messages(protocol.EventWarning)); after != before {
		t.Errorf("warnings repeated: %d then %d", before, after)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	_, m := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	m.Tools(context.Background(), (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite))
	m.servers[0].mu.Lock()
	pid := m.servers[0].conn.proc.cmd.Process.Pid
	m.servers[0].mu.Unlock()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscallKill0(pid); err == nil {
		t.Fatalf("server process %d still exists after Close", pid)
	}
	if st := m.Status()[0].State; st != StateClosed {
		t.Fatalf("state after Close = %s", st)
	}
}

func TestAmbiguousNamesAcrossServersOfferedOnce(t *testing.T) {
	// Server "a" tool "b__c" and server "a__b" tool "c" are both mcp__a__b__c.
	m := New(Options{})
	defer m.Close()
	one := &server{name: "a", m: m, state: StateReady}
	two := &server{name: "a__b", m: m, state: StateReady}
	one.tools = []*mcpTool{{srv: one, raw: "b__c", name: sanitizeName(QualifiedName("a", "b__c"))}}
	two.tools = []*mcpTool{{srv: two, raw: "c", name: sanitizeName(QualifiedName("a__b", "c"))}}
	for _, s := range []*server{one, two} {
		for _, tl := range s.tools {
			tl.spec.Name = tl.name
		}
	}
	m.servers = []*server{one, two}
	got := specNames(m.Tools(context.Background(), nil))
	if len(got) != 1 || got[0] != "mcp__a__b__c" {
		t.Fatalf("tools = %v", got)
	}
	m.Tools(context.Background(), nil)
	if w := m.Warnings(); len(w) != 1 || !strings.Contains(w[0], "same name") {
		t.Fatalf("warnings = %v", w)
	}
}

// Many agents share one server: one start, one process, calls multiplexed.
func TestConcurrentAgentsShareOneServer(t *testing.T) {
	reg, m := newRegistry(t, map[string]config.MCPServer{"t": stdioServer("serve")})
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
			reg.SpecsFor(context.Background(), env, nil) // every agent's first request races the start
			want := "Echo: " + strings.Repeat("x", i)
			if res := reg.Run(context.Background(), env, "mcp__t__echo", rawArgs(t, map[string]string{"text": strings.Repeat("x", i)})); res.Output != want {
				errs <- res.Output
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error("wrong answer:", e)
	}
	m.servers[0].mu.Lock()
	deaths, attempts := m.servers[0].deaths, m.servers[0].attempts
	m.servers[0].mu.Unlock()
	if st := m.Status()[0]; st.State != StateReady || deaths != 0 || attempts != 1 {
		t.Fatalf("status %+v, deaths %d, start attempts %d (want 1)", st, deaths, attempts)
	}
	if w := m.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %v", w)
	}
}

// Streamable HTTP delivers list_changed over the standalone SSE stream.
func TestListChangedOverHTTP(t *testing.T) {
	srv := newTestServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	reg, m := newRegistry(t, map[string]config.MCPServer{"web": {URL: hs.URL}})
	env := (&recorder{}).env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)
	changed := m.Changed()
	if res := reg.Run(context.Background(), env, "mcp__web__grow", nil); res.IsError {
		t.Fatalf("grow: %+v", res)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no tools/list_changed notification arrived over HTTP")
	}
	if res := reg.Run(context.Background(), env, "mcp__web__extra", nil); res.Output != "extra!" {
		t.Fatalf("extra = %+v", res)
	}
	_ = m.Close()
}
