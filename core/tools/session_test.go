package tools

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// The unified exec answer, parsed as Codex's own suite parses it
// (codex-rs/core/tests/suite/unified_exec.rs, parse_unified_exec_output).
var unifiedAnswer = regexp.MustCompile(`(?s)^Chunk ID: (?P<chunk>[0-9a-f]{6})\nWall time: (?P<wall>\d+\.\d{4}) seconds\n(?:Process exited with code (?P<exit>-?\d+)\n)?(?:Process running with session ID (?P<session>\d+)\n)?Original token count: (?P<tokens>\d+)\nOutput:\n(?P<output>.*)$`)

type answer struct {
	exit    *int
	session int
	tokens  int
	output  string
	raw     Result
}

func parseAnswer(t testing.TB, res Result) answer {
	t.Helper()
	m := unifiedAnswer.FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("not a unified exec answer (is_error %v): %q", res.IsError, res.Output)
	}
	a := answer{output: m[unifiedAnswer.SubexpIndex("output")], raw: res}
	if s := m[unifiedAnswer.SubexpIndex("exit")]; s != "" {
		n, _ := strconv.Atoi(s)
		a.exit = &n
	}
	if s := m[unifiedAnswer.SubexpIndex("session")]; s != "" {
		a.session, _ = strconv.Atoi(s)
	}
	a.tokens, _ = strconv.Atoi(m[unifiedAnswer.SubexpIndex("tokens")])
	if (a.exit == nil) == (a.session == 0) {
		t.Fatalf("an answer names an exit code or a session, not both or neither: %q", res.Output)
	}
	return a
}

// sessionEnv is an agent's env with a manager of the test's own, shut
// down (every process killed) when the test ends.
func sessionEnv(t *testing.T, mode protocol.SandboxMode) *Env {
	t.Helper()
	env := testEnv(t)
	env.ThreadID = "agent-a"
	env.Sandbox.Mode = mode
	env.Sessions = NewSessionManager(0)
	t.Cleanup(env.Sessions.Shutdown)
	return env
}

// restrictedEnv is sessionEnv in workspace-write with namespaces, where a
// command is the first process of its own PID namespace; skipped where
// the kernel cannot confine.
func restrictedEnv(t *testing.T) *Env {
	t.Helper()
	if _, err := sandbox.Supported(); err != nil || !sandbox.NamespacesAvailable() {
		t.Skip("needs Landlock and user namespaces")
	}
	return sessionEnv(t, protocol.SandboxWorkspaceWrite)
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
}

func execCall(t *testing.T, env *Env, args map[string]any) answer {
	t.Helper()
	return parseAnswer(t, run(t, coreRegistry(t), env, "exec_command", args))
}

func stdinCall(t *testing.T, env *Env, args map[string]any) answer {
	t.Helper()
	return parseAnswer(t, run(t, coreRegistry(t), env, "write_stdin", args))
}

// awaitOutput polls session id (empty writes, as a model would) until the
// output collected so far, starting with seen, holds want; a loaded
// machine may take longer than a call's yield to print it.
func awaitOutput(t *testing.T, env *Env, id int, seen, want string) string {
	t.Helper()
	for range 12 {
		if strings.Contains(seen, want) {
			return seen
		}
		p := stdinCall(t, env, map[string]any{"session_id": id, "chars": ""})
		seen += p.output
		if p.exit != nil {
			break
		}
	}
	if !strings.Contains(seen, want) {
		t.Fatalf("session %d never printed %q: %q", id, want, seen)
	}
	return seen
}

// Codex: unified_exec_runs_on_all_platforms, exec_command_reports_chunk_and_exit_metadata.
func TestExecCommandAnswersInCodexFormat(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	a := execCall(t, env, map[string]any{"cmd": "echo 'hello crossplat'; exit 3"})
	if a.exit == nil || *a.exit != 3 || a.output != "hello crossplat\n" || a.tokens != 4 {
		t.Fatalf("exit %v tokens %d output %q", a.exit, a.tokens, a.output)
	}
	// max_output_tokens 6: 24 bytes kept, head and tail, counted in tokens.
	a = execCall(t, env, map[string]any{"cmd": "printf 'token one token two token three token four token five token six token seven'", "max_output_tokens": 6})
	want := "Warning: truncated output (original token count: 19)\nTotal output lines: 1\n\ntoken one to…13 tokens truncated… token seven"
	if a.output != want || a.tokens != 19 {
		t.Fatalf("truncated output %q (tokens %d), want %q", a.output, a.tokens, want)
	}
	if len(env.Sessions.List("")) != 0 {
		t.Fatalf("a finished command left a session: %v", env.Sessions.List(""))
	}
}

// Codex: unified_exec_timeouts / write_stdin_returns_exit_metadata_and_clears_session.
func TestExecCommandLongRunningBecomesSessionAndIsPolledToItsEnd(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	fifo := filepath.Join(env.Cwd, "go")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skip("mkfifo:", err)
	}
	a := execCall(t, env, map[string]any{"cmd": "echo started; read x < go; echo finished $x", "yield_time_ms": 250})
	if a.session == 0 {
		t.Fatalf("want a session, got %+v", a)
	}
	if seen := awaitOutput(t, env, a.session, a.output, "started\n"); seen != "started\n" {
		t.Fatalf("the output so far: %q", seen)
	}
	if err := os.WriteFile(fifo, []byte("now\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := stdinCall(t, env, map[string]any{"session_id": a.session, "chars": "", "yield_time_ms": 30000})
	if p.exit == nil || *p.exit != 0 || p.output != "finished now\n" {
		t.Fatalf("poll: %+v", p)
	}
	res := run(t, coreRegistry(t), env, "write_stdin", map[string]any{"session_id": a.session})
	if !res.IsError || !strings.Contains(res.Output, fmt.Sprintf("Unknown process id %d", a.session)) {
		t.Fatalf("a session read to its end must be gone: %+v", res)
	}
}

// A dev server started in one call answers a request from a second call
// (loopback, network allowed by the sandbox policy).
func TestSessionDevServerAnswersAnotherCall(t *testing.T) {
	needPython(t)
	env := sessionEnv(t, protocol.SandboxWorkspaceWrite)
	if _, err := sandbox.Supported(); err != nil {
		env.Sandbox.Mode = protocol.SandboxDangerFullAccess
	}
	env.Sandbox.NetworkAccess = true
	if err := os.WriteFile(filepath.Join(env.Cwd, "index.html"), []byte("served-by-session\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	server := execCall(t, env, map[string]any{
		"cmd":           fmt.Sprintf("python3 -u -m http.server %d --bind 127.0.0.1", port),
		"yield_time_ms": 3000,
	})
	if server.session == 0 {
		t.Fatalf("server: %+v", server)
	}
	awaitOutput(t, env, server.session, server.output, "Serving HTTP")
	client := execCall(t, env, map[string]any{"cmd": fmt.Sprintf(`python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:%d/index.html').read().decode())"`, port)})
	if client.exit == nil || *client.exit != 0 || !strings.Contains(client.output, "served-by-session") {
		t.Fatalf("client: %+v", client)
	}
	log := stdinCall(t, env, map[string]any{"session_id": server.session, "chars": "\u0003", "yield_time_ms": 2000})
	if !strings.Contains(log.output, "GET /index.html") {
		t.Fatalf("the server's log names the request: %+v", log)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Codex: unified_exec_persists_across_requests_jif (state kept between
// writes), unified_exec_python_prompt_under_seatbelt (a prompt proves the
// tty), unified_exec_emits_end_event_when_session_dies_via_stdin (^D).
func TestSessionREPLKeepsStateBetweenWrites(t *testing.T) {
	needPython(t)
	env := restrictedEnv(t)
	repl := execCall(t, env, map[string]any{"cmd": "python3 -i -q", "tty": true, "yield_time_ms": 1500})
	if repl.session == 0 {
		t.Fatalf("python on a tty: %+v", repl)
	}
	awaitOutput(t, env, repl.session, repl.output, ">>>") // a prompt: python sees a terminal
	stdinCall(t, env, map[string]any{"session_id": repl.session, "chars": "x = 41\n", "yield_time_ms": 500})
	got := stdinCall(t, env, map[string]any{"session_id": repl.session, "chars": "print(x + 1)\n", "yield_time_ms": 1000})
	if got.session != repl.session {
		t.Fatalf("state between writes: %+v", got)
	}
	awaitOutput(t, env, repl.session, got.output, "42")
	end := stdinCall(t, env, map[string]any{"session_id": repl.session, "chars": "\u0004", "yield_time_ms": 3000})
	if end.exit == nil || *end.exit != 0 {
		t.Fatalf("Ctrl+D ends the REPL: %+v", end)
	}
}

// Ctrl+C typed on a tty session stops its program, also one that is the
// first process of its PID namespace and has no SIGINT handler (sleep,
// cat), and the session reports the exit (130).
func TestSessionCtrlCStopsTTYProgram(t *testing.T) {
	env := restrictedEnv(t)
	for _, cmd := range []string{"sleep 1000", "cat"} {
		s := execCall(t, env, map[string]any{"cmd": cmd, "tty": true, "yield_time_ms": 250})
		if s.session == 0 {
			t.Fatalf("%s: %+v", cmd, s)
		}
		got := stdinCall(t, env, map[string]any{"session_id": s.session, "chars": "\u0003", "yield_time_ms": 5000})
		if got.exit == nil || *got.exit != 130 {
			t.Errorf("%s: Ctrl+C: %+v", cmd, got)
		}
	}
}

// Codex: write_stdin_ctrl_c_interrupts_non_tty_session and
// write_stdin_ctrl_c_default_interrupt_reports_130_for_non_tty_session.
func TestSessionCtrlCInterruptsNonTTYSession(t *testing.T) {
	for _, mode := range []protocol.SandboxMode{protocol.SandboxDangerFullAccess, protocol.SandboxWorkspaceWrite} {
		env := sessionEnv(t, mode)
		if _, err := sandbox.Supported(); err != nil && mode != protocol.SandboxDangerFullAccess {
			continue
		}
		for _, c := range []struct {
			cmd  string
			code int
			out  string
		}{
			{"trap 'echo INT-TRAP; exit 42' INT; echo READY; while true; do sleep 30; done", 42, "INT-TRAP"},
			{"echo READY; exec sleep 30", 130, ""},
		} {
			s := execCall(t, env, map[string]any{"cmd": c.cmd, "yield_time_ms": 500})
			if s.session == 0 {
				t.Fatalf("%s %s: %+v", mode, c.cmd, s)
			}
			awaitOutput(t, env, s.session, s.output, "READY") // its trap is set
			got := stdinCall(t, env, map[string]any{"session_id": s.session, "chars": "\u0003", "yield_time_ms": 5000})
			if got.exit == nil || *got.exit != c.code || !strings.Contains(got.output, c.out) {
				t.Errorf("%s %s: %+v", mode, c.cmd, got)
			}
		}
	}
}

// More output than the session buffer holds between two reads keeps its
// head and tail; the answer counts what was dropped.
func TestSessionOverflowIsCountedInTheAnswer(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	a := execCall(t, env, map[string]any{"cmd": "echo FIRST; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo LAST", "timeout_ms": 60000})
	if a.exit == nil || *a.exit != 0 || !strings.HasPrefix(a.output, "Warning: truncated output (original token count: 75000") ||
		!strings.Contains(a.output, "\n\nFIRST\n") || !strings.HasSuffix(a.output, "\nLAST\n") || a.tokens < 750000 {
		t.Fatalf("tokens %d, output %.300q", a.tokens, a.output)
	}
}
