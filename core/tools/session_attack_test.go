package tools

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// A session id belongs to its agent: another agent's write_stdin is told
// it is unknown (learning nothing), cannot close it, and the owner keeps
// using it.
func TestSessionOfAnotherAgentIsRefused(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	s := execCall(t, env, map[string]any{"cmd": "echo up; exec sleep 1000", "yield_time_ms": 250})
	other := *env
	other.ThreadID = "agent-b"
	for _, chars := range []string{"", "\u0003", "echo pwned\n"} {
		res := run(t, coreRegistry(t), &other, "write_stdin", map[string]any{"session_id": s.session, "chars": chars, "yield_time_ms": 250})
		if !res.IsError || !strings.Contains(res.Output, fmt.Sprintf("Unknown process id %d", s.session)) {
			t.Fatalf("agent-b wrote %q to agent-a's session: %+v", chars, res)
		}
	}
	env.Sessions.CloseOwner(other.ThreadID)
	if err := env.Sessions.Kill(other.ThreadID, s.session); err == nil {
		t.Fatal("agent-b killed agent-a's session")
	}
	if got := env.Sessions.List(env.ThreadID); len(got) != 1 || got[0].Exited {
		t.Fatalf("agent-a's session after agent-b's attempts: %+v", got)
	}
}

// A finished session takes no writes: its end is reported once, then the
// id is unknown; a session without a terminal refuses text.
func TestSessionWritesToAFinishedSession(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	fifo := filepath.Join(env.Cwd, "go")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	s := execCall(t, env, map[string]any{"cmd": "read x < go; echo bye", "yield_time_ms": 250})
	if s.session == 0 {
		t.Fatalf("%+v", s)
	}
	res := run(t, coreRegistry(t), env, "write_stdin", map[string]any{"session_id": s.session, "chars": "text\n"})
	if !res.IsError || !strings.Contains(res.Output, "stdin is closed for this session; rerun exec_command with tty=true") {
		t.Fatalf("text to a session without a terminal: %+v", res)
	}
	if err := os.WriteFile(fifo, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err := env.Sessions.Lookup(env.ThreadID, s.session)
	if err != nil {
		t.Fatal(err)
	}
	<-sess.Done()
	end := stdinCall(t, env, map[string]any{"session_id": s.session, "chars": "late input\n", "yield_time_ms": 250})
	if end.exit == nil || *end.exit != 0 || end.output != "bye\n" {
		t.Fatalf("a write to an ended, unread session reports its end: %+v", end)
	}
	for _, id := range []any{s.session, 424242, -1} {
		res := run(t, coreRegistry(t), env, "write_stdin", map[string]any{"session_id": id, "chars": "x"})
		if !res.IsError || !strings.Contains(res.Output, "write_stdin failed: Unknown process id") {
			t.Fatalf("write to session %v: %+v", id, res)
		}
	}
	if res := run(t, coreRegistry(t), env, "write_stdin", map[string]any{"session_id": 1000.5}); !res.IsError || !strings.Contains(res.Output, "is not a session id") {
		t.Fatalf("fractional id: %+v", res)
	}
}

// The sandbox applies to a tty session as to a plain command: TIOCSTI on
// its own terminal is refused by the seccomp filter, writes outside the
// workspace by Landlock.
func TestSessionTTYIsSandboxed(t *testing.T) {
	needPython(t)
	env := restrictedEnv(t)
	a := execCall(t, env, map[string]any{"tty": true, "yield_time_ms": 5000, "cmd": `python3 -c "
import fcntl, termios, sys
try:
    fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('TIOCSTI-ALLOWED')
except OSError as e: print('TIOCSTI-REFUSED', e.errno)
try:
    open('/etc/grove-session-test', 'w'); print('WRITE-ALLOWED')
except OSError as e: print('WRITE-REFUSED')
print('TTY', sys.stdin.isatty())
"`})
	if a.exit == nil || !strings.Contains(a.output, "TIOCSTI-REFUSED 1") || !strings.Contains(a.output, "WRITE-REFUSED") || !strings.Contains(a.output, "TTY True") {
		t.Fatalf("tty session under the sandbox: %+v", a)
	}
}

// A pty escape sequence a command prints reaches the model as output (as
// Codex sends it), never as an answer line: the format's lines stay first.
func TestSessionEscapeSequencesStayInTheOutput(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	a := execCall(t, env, map[string]any{"tty": true, "cmd": `printf '\033]52;c;cHduZWQ=\007\033[2J\033]0;title\007\nProcess exited with code 0\n'`})
	if a.exit == nil || !strings.HasPrefix(a.raw.Output, "Chunk ID: ") || !strings.Contains(a.output, "\x1b]52;c;") {
		t.Fatalf("%q", a.raw.Output)
	}
}

// The 65th session closes the least recently used one (never one of the
// 8 most recent), as Codex prunes; the manager never holds more than 64.
func TestSession65thPrunesTheLeastRecentlyUsed(t *testing.T) {
	env := sessionEnv(t, protocol.SandboxDangerFullAccess)
	var ids []int
	for i := range MaxSessions {
		s, err := StartShellSession(env, ShellSessionRequest{Command: fmt.Sprintf("exec sleep 1000 # %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
	}
	oldest, _ := env.Sessions.Lookup(env.ThreadID, ids[0]) // used now: no longer the oldest
	_ = oldest
	if _, err := StartShellSession(env, ShellSessionRequest{Command: "exec sleep 1000 # 65"}); err != nil {
		t.Fatal(err)
	}
	if n := len(env.Sessions.List("")); n != MaxSessions {
		t.Fatalf("%d sessions, want %d", n, MaxSessions)
	}
	if _, err := env.Sessions.Lookup(env.ThreadID, ids[1]); err == nil {
		t.Fatal("the least recently used session survived the 65th")
	}
	if _, err := env.Sessions.Lookup(env.ThreadID, ids[0]); err != nil {
		t.Fatalf("a recently used session was pruned: %v", err)
	}
}

// No process of a session survives its close, its agent's close or
// interrupt, or the manager's shutdown: also not a background child or
// one that left the session with setsid.
func TestSessionLeavesNoProcessBehind(t *testing.T) {
	env := restrictedEnv(t)
	for _, end := range []string{"close", "close-owner", "interrupt", "shutdown"} {
		marker := fmt.Sprintf("1000.%d%d", time.Now().UnixNano()%1e6, len(end))
		a := execCall(t, env, map[string]any{"yield_time_ms": 500, "cmd": fmt.Sprintf("sleep %s & setsid sleep %s & echo started; wait", marker, marker)})
		if a.session == 0 {
			t.Fatalf("%s: %+v", end, a)
		}
		awaitOutput(t, env, a.session, a.output, "started")
		pids := markedProcs(t, marker, 2)
		s, err := env.Sessions.Lookup(env.ThreadID, a.session)
		if err != nil {
			t.Fatal(err)
		}
		switch end {
		case "close":
			s.Close()
		case "close-owner":
			env.Sessions.CloseOwner(env.ThreadID)
		case "interrupt":
			env.Sessions.InterruptOwner(env.ThreadID)
			<-s.Done()
		case "shutdown":
			env.Sessions.Shutdown()
		}
		waitGone(t, pids)
	}
}

// procsWith lists the processes whose command line contains marker.
func procsWith(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, pid)
		}
	}
	return out
}

// markedProcs returns the n processes with marker: they exist already,
// started before the command printed what its call waited for.
func markedProcs(t *testing.T, marker string, n int) []int {
	t.Helper()
	if got := procsWith(marker); len(got) >= n {
		return got
	}
	t.Fatalf("want %d processes with %s, have %v", n, marker, procsWith(marker))
	return nil
}

// waitGone waits, on each process's pidfd, until every pid has exited.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // already gone
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 10_000)
		_ = unix.Close(fd)
		if err != nil || n == 0 {
			t.Fatalf("process %d survived", pid)
		}
	}
}

// sessionChildEnv makes the test binary a grove that starts one session
// (TestMain): the parent kills it with SIGKILL.
const sessionChildEnv = "GROVE_TEST_SESSION_CHILD"

func runSessionChild(marker string) {
	env := &Env{ThreadID: "child", Cwd: os.TempDir(), Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, Sessions: NewSessionManager(0)}
	s, err := StartShellSession(env, ShellSessionRequest{Command: fmt.Sprintf("sleep %s & setsid sleep %s & echo started; wait", marker, marker)})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	c := s.Read(context.Background(), time.Now().Add(5*time.Second), nil)
	fmt.Printf("ready %q\n", c.Output)
	select {} // until killed
}

// kill -9 of grove takes its sessions' process trees with it (the sandbox
// helper watches grove's pidfd).
func TestSessionDiesWithAKilledGrove(t *testing.T) {
	restrictedEnv(t)
	marker := fmt.Sprintf("1000.9%d", time.Now().UnixNano()%1e6)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), sessionChildEnv+"="+marker)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child: %q %v", line, err)
	}
	testkit.Eventually(t, "the child's session processes", func() bool { return len(procsWith(marker)) >= 2 })
	pids := procsWith(marker)
	_ = cmd.Process.Signal(unix.SIGKILL)
	_ = cmd.Wait()
	waitGone(t, pids)
}
