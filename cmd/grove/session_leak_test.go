package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/grovecli/grove/cmd/grove/acp"
	"github.com/grovecli/grove/cmd/grove/appserver"
	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// leakMCPEnv makes the test binary a stdio MCP server (see TestMain): the
// sessions below start it as a real child process.
const leakMCPEnv = "GROVE_LEAK_TEST_MCP"

// serveLeakMCP serves one read-only tool, echo, on stdin/stdout.
func serveLeakMCP() {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "grove-leak-test", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "echo", Description: "Echo the text.", Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcpsdk.CallToolRequest, a args) (*mcpsdk.CallToolResult, any, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "Echo: " + a.Text}}}, nil, nil
		})
	_ = s.Run(context.Background(), &mcpsdk.StdioTransport{})
}

// leakEnv is one configuration every front end opens a session with: a
// provider on the in-process model server, an MCP server (this binary), a
// trusted project with a PreToolUse command hook, and — when sshd runs
// here — a host the root's commands run on.
type leakEnv struct {
	home, proj, hookLog string
	host                string // "" without sshd
	sshd                *sshdFixture
	// turnsDone counts the turns whose MCP call and command both answered.
	turnsDone atomic.Int32
}

func newLeakEnv(t *testing.T) *leakEnv {
	hookEnv(t)
	// A short temp dir of the test's own: grove's ssh control directory
	// (execenv.controlDir) is then this test's, not shared with other
	// processes' masters.
	tmp, err := os.MkdirTemp("/tmp", "gleak")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	e := &leakEnv{home: t.TempDir()}
	t.Setenv("GROVE_HOME", e.home)
	// Hooks run in the session's sandbox: their log goes to a writable
	// root, the temp dir.
	e.hookLog = filepath.Join(os.Getenv("TMPDIR"), "hook.log")
	e.proj = hookProject(t, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"cat > /dev/null; echo ran >> `+e.hookLog+`"}]}]}}`)
	cfg := fmt.Sprintf("approval_policy = \"never\"\n[projects.%s]\ntrust_level = \"trusted\"\n[mcp_servers.leak]\ncommand = %q\nenv = { %s = \"serve\" }\n", quote(e.proj), os.Args[0], leakMCPEnv)
	if groveBin != "" && os.Getenv("GROVE_LEAK_NO_SSH") == "" {
		if f := tryStartSSHD(t); f != nil {
			e.sshd, e.host = f, "box"
			cfg += f.hostTOML("box", filepath.Join(t.TempDir(), "remote-ws"))
		}
	}
	writeFile(t, filepath.Join(e.home, "config.toml"), cfg)
	if out, errOut, err := runCLI(t, e.home, "", "hooks", "trust", "--all", "-C", e.proj); err != nil || !strings.Contains(out, "recorded 1 review") {
		t.Fatalf("hooks trust: %v\n%s%s", err, out, errOut)
	}
	// Each turn: the MCP tool and a command (on the host, with one), then
	// the answer.
	m := modeltest.NewServer(t)
	m.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		if last, _ := msgs[len(msgs)-1].(map[string]any); last["role"] == "tool" {
			// Both tools answered: the MCP server's echo and the command.
			all := fmt.Sprint(msgs)
			if !strings.Contains(all, "Echo: hi") || !strings.Contains(all, "from-the-command") {
				return modeltest.Reply{Text: "tools failed: " + all}
			}
			e.turnsDone.Add(1)
			return modeltest.Reply{Text: "all done"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{ID: "m1", Name: "mcp__leak__echo", Arguments: `{"text":"hi"}`},
			{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"echo from-the-command"}`},
		}}
	})
	t.Setenv("OPENAI_BASE_URL", m.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	return e
}

// tryStartSSHD is startSSHD when OpenSSH is installed, else nil: the
// rest of the leak test runs without a host.
func tryStartSSHD(t *testing.T) *sshdFixture {
	for _, bin := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil
		}
	}
	if _, err := exec.LookPath("sshd"); err != nil {
		if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
			return nil
		}
	}
	return startSSHD(t)
}

// globals are the command line of a session in the project, on the
// host when there is one.
func (e *leakEnv) globals() *globalFlags {
	return &globalFlags{cd: e.proj, model: "m", host: e.host}
}

// hookRuns counts the hook's runs so far.
func (e *leakEnv) hookRuns() int {
	b, _ := os.ReadFile(e.hookLog)
	return strings.Count(string(b), "ran")
}

// leakProbe is what the process holds before a front end opens a session.
type leakProbe struct {
	goroutines goleak.Option
	fds        int
	children   map[int]bool
	masters    map[string]bool
}

func probe() leakProbe {
	return leakProbe{goroutines: goleak.IgnoreCurrent(), fds: countFDs(), children: childPIDs(), masters: sshMasters()}
}

// check fails when the front end left a goroutine, a child process, a
// file descriptor or an ssh ControlMaster behind after closing.
func (p leakProbe) check(t *testing.T, frontEnd string) {
	t.Helper()
	newChildren := func() []int {
		var out []int
		for pid := range childPIDs() {
			if !p.children[pid] {
				out = append(out, pid)
			}
		}
		return out
	}
	testkit.Eventually(t, frontEnd+": no child process left", func() bool { return len(newChildren()) == 0 }, func() string {
		var b strings.Builder
		for _, pid := range newChildren() {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			fmt.Fprintf(&b, "%d: %s\n", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
		return b.String()
	})
	p.checkMasters(t, frontEnd)
	testkit.Eventually(t, frontEnd+": no file descriptor left", func() bool { return countFDs() <= p.fds }, func() string {
		return fmt.Sprintf("%d open, %d before:\n%s", countFDs(), p.fds, fdTargets())
	})
	// goleak.Find retries for about 0.4 s only: on a loaded machine a
	// goroutine Close has already told to stop can take longer to return.
	var leak error
	testkit.Eventually(t, frontEnd+": no goroutine left", func() bool {
		leak = goleak.Find(p.goroutines)
		return leak == nil
	}, func() string { return fmt.Sprint(leak) })
}

// checkMasters fails when an ssh ControlMaster socket that was not there
// before is left. No waiting: Close has released the master (ssh -O stop
// unlinks its socket at once); one still there would linger until
// ControlPersist ends it.
func (p leakProbe) checkMasters(t *testing.T, frontEnd string) {
	t.Helper()
	for m := range sshMasters() {
		if !p.masters[m] {
			t.Errorf("%s: ssh ControlMaster %s left", frontEnd, m)
		}
	}
}

func countFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

func fdTargets() string {
	ents, _ := os.ReadDir("/proc/self/fd")
	var b strings.Builder
	for _, e := range ents {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		fmt.Fprintf(&b, "%s -> %s\n", e.Name(), target)
	}
	return b.String()
}

// childPIDs are this process's children (any state but reaped).
func childPIDs() map[int]bool {
	self := os.Getpid()
	out := map[int]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so cut at its ')'.
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		f := strings.Fields(rest)
		if len(f) > 1 {
			if ppid, _ := strconv.Atoi(f[1]); ppid == self {
				out[pid] = true
			}
		}
	}
	return out
}

// sshMasters are the ControlMaster sockets in grove's control directory
// (execenv.controlDir).
func sshMasters() map[string]bool {
	base := os.TempDir()
	if len(base) > 30 {
		base = "/tmp"
	}
	out := map[string]bool{}
	ents, _ := os.ReadDir(filepath.Join(base, fmt.Sprintf("grove-ssh-%d", os.Getuid())))
	for _, e := range ents {
		if e.Type()&os.ModeSocket != 0 {
			out[e.Name()] = true
		}
	}
	return out
}

// TestSessionsLeaveNothingBehind opens a session through each front end
// (exec, the TUI's session plumbing, the app-server and ACP over pipes),
// runs one turn that calls an MCP tool and a command (on an SSH host when
// sshd runs here) with a PreToolUse hook, closes it, and checks that no
// goroutine, child process, file descriptor or ssh master is left.
func TestSessionsLeaveNothingBehind(t *testing.T) {
	e := newLeakEnv(t)
	t.Logf("ssh host: %q", e.host)
	// A first session warms what the process keeps for all of them (the
	// login shell's snapshot, the sandbox's helper pool, the model
	// server's listener): those are no session's to release.
	masters := sshMasters()
	runLeakExec(t, e)
	// The warm-up's ssh master is gone too (else it would serve, unseen,
	// every session below).
	leakProbe{masters: masters}.checkMasters(t, "the first exec")
	for _, fe := range []struct {
		name string
		run  func(*testing.T, *leakEnv)
	}{
		{"exec", runLeakExec},
		{"tui", runLeakTUI},
		{"app-server", runLeakAppServer},
		{"acp", runLeakACP},
	} {
		t.Run(fe.name, func(t *testing.T) {
			before, turns, p := e.hookRuns(), e.turnsDone.Load(), probe()
			fe.run(t, e)
			if e.hookRuns() <= before {
				t.Errorf("%s: the PreToolUse hook did not run", fe.name)
			}
			if e.turnsDone.Load() != turns+1 {
				t.Errorf("%s: the turn's MCP call and command did not both answer", fe.name)
			}
			p.check(t, fe.name)
		})
	}
}

func runLeakExec(t *testing.T, e *leakEnv) {
	t.Helper()
	var out, errb strings.Builder
	f := &execFlags{}
	if err := runExec(context.Background(), e.globals(), f, "go", "", &out, &errb); err != nil {
		t.Fatalf("exec: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "all done") {
		t.Fatalf("exec answered %q\n%s", out.String(), errb.String())
	}
}

// runLeakTUI drives the TUI's sessions (what runTUI hands the TUI: open,
// then the backend's Submit and Subscribe) without a terminal.
func runLeakTUI(t *testing.T, e *leakEnv) {
	t.Helper()
	ts := &tuiSessions{ctx: context.Background(), g: e.globals()}
	b, err := ts.open("")
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := b.Subscribe()
	if err := b.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: b.RootID(), Text: "go"}); err != nil {
		t.Fatal(err)
	}
	waitTurnCompleted(t, events, b.RootID())
	cancel()
	ts.closeLast()
}

func waitTurnCompleted(t *testing.T, events <-chan protocol.Event, root protocol.ThreadID) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("events ended before the turn completed")
			}
			if ev.ThreadID == root && ev.Type == protocol.EventTurnCompleted {
				return
			}
		case <-timeout:
			t.Fatal("the turn did not complete")
		}
	}
}

// runLeakAppServer runs the app-server on pipes: initialize, thread/start,
// turn/start, wait for turn/completed, then end the input.
func runLeakAppServer(t *testing.T, e *leakEnv) {
	t.Helper()
	g := e.globals()
	cfg, err := loadConfig(g)
	if err != nil {
		t.Fatal(err)
	}
	host, err := appServerHost(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	open := serverSessions(g)
	served := make(chan error, 1)
	go func() {
		served <- appserver.Serve(context.Background(), inR, outW, appserver.Options{
			Home: cfg.Home, Version: "test", Host: host, Skills: discoverSkills, Cwd: e.proj,
			OpenSession: func(ctx context.Context, c appserver.ThreadConfig, start app.Start) (*app.Session, error) {
				return open(ctx, c, nil, start)
			},
		})
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	send := func(v string) {
		if _, err := io.WriteString(inW, v+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// await reads messages until match says so (a reply or a notification).
	await := func(what string, match func(map[string]any) bool) map[string]any {
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) == nil && match(m) {
				return m
			}
		}
		t.Fatalf("app-server output ended before %s", what)
		return nil
	}
	isReply := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool {
			if m["id"] == id && m["error"] != nil {
				t.Fatalf("request %v: %v", id, m["error"])
			}
			return m["id"] == id && m["method"] == nil
		}
	}
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"leak-test","version":"1"}}}`)
	await("initialize", isReply(1))
	send(`{"method":"initialized"}`)
	send(fmt.Sprintf(`{"id":2,"method":"thread/start","params":{"cwd":%q}}`, e.proj))
	th := await("thread/start", isReply(2))
	id := th["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	send(fmt.Sprintf(`{"id":3,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"go"}]}}`, id))
	await("turn/completed", func(m map[string]any) bool { return m["method"] == "turn/completed" })
	_ = inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// runLeakACP runs ACP on pipes with the SDK's client: initialize,
// session/new, one prompt, then the client goes away.
func runLeakACP(t *testing.T, e *leakEnv) {
	t.Helper()
	g := e.globals()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	open := serverSessions(g)
	served := make(chan error, 1)
	go func() {
		served <- acp.Serve(context.Background(), toAgentR, fromAgentW, acp.Options{Version: "test",
			OpenSession: func(ctx context.Context, cwd string, mcpServers map[string]config.MCPServer, start app.Start) (*app.Session, error) {
				return open(ctx, appserver.ThreadConfig{Cwd: cwd}, mcpServers, start)
			}})
		_ = fromAgentW.Close()
	}()
	cs := sdk.NewClientSideConnection(leakACPClient{}, toAgentW, fromAgentR)
	ctx := context.Background()
	if _, err := cs.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := cs.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cs.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %+v", err, r)
	}
	_ = toAgentW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	_ = toAgentR.Close()
	<-cs.Done()
}

// leakACPClient is an ACP client that offers nothing but reading updates
// (approval_policy = never: nothing asks).
type leakACPClient struct{}

func (leakACPClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
}
func (leakACPClient) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (leakACPClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
}
func (leakACPClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
}
func (leakACPClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (leakACPClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (leakACPClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (leakACPClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (leakACPClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}
