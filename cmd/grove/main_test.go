package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	if os.Getenv(leakMCPEnv) != "" { // the leak test's MCP server
		serveLeakMCP()
		os.Exit(0)
	}
	sandbox.MaybeRunHelper()
	dir, err := os.MkdirTemp("", "grove-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if groveBin, err = buildGrove(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// goleak.VerifyTestMain exits; the binary's directory goes first.
	goleak.VerifyTestMain(exitHook{m, func() { _ = os.RemoveAll(dir) }})
}

// exitHook runs cleanup after the tests, before goleak's check and exit.
type exitHook struct {
	m       *testing.M
	cleanup func()
}

func (h exitHook) Run() int {
	code := h.m.Run()
	h.cleanup()
	return code
}

// runCLI runs the grove command tree in-process with a private GROVE_HOME.
func runCLI(t *testing.T, home string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	t.Setenv("GROVE_HOME", home)
	// No Codex config of the machine's user leaks into a test.
	t.Setenv("CODEX_HOME", filepath.Join(home, "no-codex-home"))
	cmd := newRootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func noProviderEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	// The demo's scratch project lands in the test's temp dir.
	t.Setenv("TMPDIR", t.TempDir())
}

// TestExecDemoRemovesItsScratchProject: the demo's /tmp/grove-demo-*
// project goes away when grove exits, and the final message said where it was.
func TestExecDemoRemovesItsScratchProject(t *testing.T) {
	noProviderEnv(t)
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--demo", "--approve-workdirs", "show me")
	if err != nil {
		t.Fatalf("exec: %v\nstderr:\n%s", err, errOut)
	}
	left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "grove-demo-*"))
	if len(left) != 0 {
		t.Fatalf("scratch projects left behind: %v", left)
	}
	if !strings.Contains(out, "The scratch project was `"+filepath.Join(os.Getenv("TMPDIR"), "grove-demo-")) || !strings.Contains(out, "--keep-demo-dir") {
		t.Fatalf("final message does not say where the scratch project was:\n%s", out)
	}
}

func TestExecDemoRunsTheWholeTree(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	out, errOut, err := runCLI(t, home, "", "--keep-demo-dir", "exec", "--demo", "--approve-workdirs", "show me")
	if err != nil {
		t.Fatalf("exec: %v\nstderr:\n%s", err, errOut)
	}
	if !strings.Contains(out, "Demo complete") || !strings.Contains(out, "explorer") || !strings.Contains(out, "worker") {
		t.Fatalf("final answer:\n%s\nstderr:\n%s", out, errOut)
	}
	if !strings.Contains(errOut, "offline demo model") {
		t.Fatalf("demo not labelled on stderr:\n%s", errOut)
	}
	// The worker really edited the scratch project.
	var scratch string
	for _, line := range strings.Split(errOut, "\n") {
		if i := strings.Index(line, "demo model in "); i >= 0 {
			scratch = strings.TrimSpace(line[i+len("demo model in "):])
		}
	}
	b, err := os.ReadFile(filepath.Join(scratch, "service", "greet.go"))
	if err != nil || !strings.Contains(string(b), "func Farewell") {
		t.Fatalf("greet.go not patched (%v):\n%s", err, b)
	}
	// The session is listed, newest first, with its sub-agents.
	list, _, err := runCLI(t, home, "", "sessions", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var entry struct {
		ID         string `json:"id"`
		ChildCount int    `json:"child_count"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(list, "\n", 2)[0]), &entry); err != nil || entry.ChildCount != 2 {
		t.Fatalf("sessions list: %q (%v)", list, err)
	}
}

func TestExecDemoWithoutApprovalFallsBack(t *testing.T) {
	noProviderEnv(t)
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--demo", "go")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	// The working-directory spawn was refused headlessly; the demo recovered.
	if !strings.Contains(errOut, "spawn_agent rejected") || !strings.Contains(out, "Demo complete") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// Seed 000's top-level agent_max_threads reaches the engine: at 1, the
// demo's second concurrent spawn is refused, and the demo still ends.
func TestExecDemoHonoursAgentMaxThreads(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("agent_max_threads = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, home, "", "exec", "--demo", "go")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "collab spawn failed: agent thread limit reached (max 1)") || strings.Contains(errOut, "agent_max_threads") || !strings.Contains(out, "Demo complete") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

func TestExecJSONEventsAndStdinPrompt(t *testing.T) {
	noProviderEnv(t)
	out, errOut, err := runCLI(t, t.TempDir(), "show me\n", "exec", "--demo", "--json=grove", "--approve-workdirs", "-")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	types := map[protocol.EventType]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		for _, k := range []string{"type", "thread_id", "timestamp"} {
			if _, ok := ev[k]; !ok {
				t.Fatalf("event without %s: %s", k, line)
			}
		}
		types[protocol.EventType(ev["type"].(string))]++
	}
	for _, want := range []protocol.EventType{protocol.EventTurnStarted, protocol.EventMessageDelta, protocol.EventMessage, protocol.EventToolCallBegin, protocol.EventExecOutputDelta, protocol.EventToolCallEnd, protocol.EventApprovalResolved, protocol.EventStatusChanged, protocol.EventBackground, protocol.EventTurnCompleted} {
		if types[want] == 0 {
			t.Errorf("no %s event (got %v)", want, types)
		}
	}
}

func TestExecErrors(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	if _, _, err := runCLI(t, home, "", "exec", "-c", "approval_policy=sometimes", "x"); err == nil || !strings.Contains(err.Error(), "approval_policy") {
		t.Fatalf("bad config: %v", err)
	}
	if _, _, err := runCLI(t, home, "", "exec", "--demo", "--cd", "/no/such/dir", "x"); err == nil || !strings.Contains(err.Error(), "/no/such/dir") {
		t.Fatalf("bad --cd: %v", err)
	}
	if _, _, err := runCLI(t, home, "   ", "exec", "--demo", "-"); err == nil || !strings.Contains(err.Error(), "No prompt provided via stdin.") {
		t.Fatalf("empty stdin: %v", err)
	}
	if _, _, err := runCLI(t, home, "", "exec", "--demo", "--resume", "nope", "x"); err == nil {
		t.Fatal("resume of unknown session should fail")
	}
}

func TestAgentsList(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	dir := t.TempDir()
	_ = os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	_ = os.MkdirAll(filepath.Join(dir, ".claude", "agents"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".claude", "agents", "reviewer.md"), []byte("---\nname: reviewer\ndescription: Reviews code: finds bugs\ntools: Read, Grep, Bash\nmodel: sonnet\n---\nYou review code.\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, ".claude", "agents", "broken.md"), []byte("---\nname: [unclosed\n"), 0o644)
	out, errOut, err := runCLI(t, home, "", "agents", "list", "--cd", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reviewer", "orchestrator", "worker", "explorer", filepath.Join(dir, ".claude", "agents", "reviewer.md")} {
		if !strings.Contains(out, want) {
			t.Errorf("agents list lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "broken.md") {
		t.Errorf("broken template not reported:\n%s", errOut)
	}
	// Seed 002: the built-ins are seeded into $GROVE_HOME/agents on the
	// first run (an unedited copy still ranks below ~/.codex/.agents and
	// ~/.claude/agents: templates TestUserScopeOverridesBuiltins).
	if _, err := os.Stat(filepath.Join(home, "agents", "worker.md")); err != nil {
		t.Errorf("$GROVE_HOME/agents was not seeded with a copy of worker.md: %v", err)
	}
	js, _, err := runCLI(t, home, "", "agents", "list", "--json", "--cd", dir)
	if err != nil || !json.Valid([]byte(js)) {
		t.Fatalf("--json: %v %q", err, js)
	}
}

// TestExecAgainstProviderAndResume runs one agent against an
// OpenAI-compatible server (the in-process mock, chat wire API): a tool call
// executes in --cd, the answer goes to stdout, the key never reaches the
// rollout, and --resume continues the same session.
func TestExecAgainstProviderAndResume(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	work := t.TempDir()
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		last, _ := msgs[len(msgs)-1].(map[string]any)
		switch {
		case last["role"] == "tool":
			return modeltest.Reply{Text: "The file says: " + strings.TrimSpace(last["content"].(string))}
		case strings.Contains(fmt.Sprint(last["content"]), "again"):
			return modeltest.Reply{Text: fmt.Sprintf("second turn, %d messages of history", len(msgs))}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"cat note.txt"}`}}}
	})
	if err := os.WriteFile(filepath.Join(work, "note.txt"), []byte("hello from the workdir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-secret-do-not-store")
	home := t.TempDir()
	out, errOut, err := runCLI(t, home, "", "exec", "--cd", work, "-m", "test-model", "read note.txt")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "hello from the workdir") {
		t.Fatalf("stdout %q\nstderr %s", out, errOut)
	}
	if auth := s.Requests()[0].Header.Get("Authorization"); auth != "Bearer sk-secret-do-not-store" {
		t.Fatalf("auth %q", auth)
	}
	list, _, _ := runCLI(t, home, "", "sessions", "list", "--json")
	var entry struct {
		ID          string `json:"id"`
		RolloutPath string `json:"rollout_path"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(list, "\n", 2)[0]), &entry); err != nil {
		t.Fatalf("sessions list %q: %v", list, err)
	}
	b, _ := os.ReadFile(entry.RolloutPath)
	if strings.Contains(string(b), "sk-secret") {
		t.Fatal("API key written to the rollout")
	}
	out, errOut, err = runCLI(t, home, "", "exec", "--resume", entry.ID[len(entry.ID)-12:], "--cd", work, "-m", "test-model", "again please")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	// system + user + assistant(call) + tool + assistant + user = 6 messages.
	if !strings.Contains(out, "second turn, 6 messages of history") {
		t.Fatalf("resumed turn lost history: %q", out)
	}
}

func TestExecProviderFailureIsClear(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		return modeltest.Reply{Status: 401, Body: `{"error":{"message":"invalid api key"}}`}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-wrong")
	_, _, err := runCLI(t, t.TempDir(), "", "exec", "-m", "m", "hi")
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), s.URL()) || strings.Contains(err.Error(), "sk-wrong") {
		t.Fatalf("error %v", err)
	}
}
