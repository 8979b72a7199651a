package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/testkit"
)

// startedProcs waits until the n processes a session started with marker
// run (a loaded machine may start them after the call's yield) and lists
// them.
func startedProcs(t *testing.T, marker string, n int) []int {
	t.Helper()
	testkit.Eventually(t, "the session's processes", func() bool { return len(markedProcs(marker)) >= n })
	return markedProcs(marker)
}

// markedProcs lists the processes whose command line holds marker.
func markedProcs(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
			out = append(out, pid)
		}
	}
	return out
}

// awaitExit waits on each pid's pidfd for its exit.
func awaitExit(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
		_ = unix.Close(fd)
		if err != nil || n == 0 {
			t.Fatalf("process %d survived", pid)
		}
	}
}

// sessionScript runs a command that outlives its call (a session) and
// ends its turn, leaving the session running.
func sessionScript(marker string) func(context.Context, turn) (model.Response, error) {
	return func(_ context.Context, tn turn) (model.Response, error) {
		if tn.rounds == 0 {
			return calls(toolCall("x", "exec_command", map[string]any{
				"cmd": fmt.Sprintf("sleep %s & setsid sleep %s & echo up; wait", marker, marker), "yield_time_ms": 500,
			})), nil
		}
		return text("left it running"), nil
	}
}

// A session outlives its turn; interrupting its agent stops it, and
// nothing it started survives.
func TestInterruptingAnAgentStopsItsSessions(t *testing.T) {
	marker := fmt.Sprintf("1000.%d1", time.Now().UnixNano()%1e6)
	env := newEnv(t, script{"root": sessionScript(marker)}, nil)
	env.send("start a server")
	if out := env.toolOutput("x").Output; !strings.Contains(out, "Process running with session ID") {
		t.Fatalf("exec_command: %s", out)
	}
	env.rootFinal(1)
	if got := env.e.Sessions(env.root); len(got) != 1 || got[0].Owner != env.root {
		t.Fatalf("sessions after the turn: %+v", got)
	}
	pids := startedProcs(t, marker, 2)
	env.e.interruptTree(env.e.thread(env.root))
	awaitExit(t, pids)
	if got := env.e.Sessions(""); len(got) != 0 {
		t.Fatalf("sessions after the interrupt: %+v", got)
	}
}

// Closing a sub-agent kills its sessions' trees; the user can kill any
// session by id (/ps).
func TestClosingAnAgentKillsItsSessions(t *testing.T) {
	marker := fmt.Sprintf("1000.%d2", time.Now().UnixNano()%1e6)
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "message": "serve"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}, "timeout_ms": 60000})), nil
			}
			return text("done"), nil
		},
		"worker": sessionScript(marker),
	}, nil)
	env.send("go")
	child := spawnedID(t, env.toolOutput("s").Output)
	env.toolOutput("w")
	list := env.e.Sessions(child)
	if len(list) != 1 {
		t.Fatalf("the worker's sessions: %+v", list)
	}
	pids := startedProcs(t, marker, 2)
	if _, err := env.e.CloseAgent(env.root, child); err != nil {
		t.Fatal(err)
	}
	awaitExit(t, pids)
	if got := env.e.Sessions(child); len(got) != 0 {
		t.Fatalf("sessions of a closed agent: %+v", got)
	}
	if err := env.e.KillSession(list[0].ID); err == nil {
		t.Fatal("killed a session that is gone")
	}
}

// A resumed conversation is told that the sessions its previous run left
// running are gone (grove's exit killed them), and so is the user.
func TestResumedSessionSaysItsOldProcessesAreGone(t *testing.T) {
	marker := fmt.Sprintf("1000.%d3", time.Now().UnixNano()%1e6)
	env := newEnv(t, script{"root": sessionScript(marker)}, nil)
	env.send("start a server")
	out := env.toolOutput("x").Output
	env.rootFinal(1)
	pids := startedProcs(t, marker, 2)
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	awaitExit(t, pids)
	e2, err := New(context.Background(), env.e.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e2.Shutdown(context.Background()) }()
	id, err := e2.ResumeSession(string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	hist := e2.History(id)
	last := hist[len(hist)-1]
	sid := sessionRunning.FindStringSubmatch(out)
	if !last.IsGroveNotice() || sid == nil || !strings.Contains(last.Content, "session ID "+sid[1]+") are gone") {
		t.Fatalf("last item after resume: %+v (exec output %q)", last, out)
	}
}

func TestGoneSessionsFollowsEachSessionToItsEnd(t *testing.T) {
	items := []protocol.Item{
		protocol.FunctionCall("a", "exec_command", `{"cmd":"serve"}`),
		protocol.FunctionCallOutput("a", "Chunk ID: 000001\nWall time: 0.2500 seconds\nProcess running with session ID 1111\nOriginal token count: 0\nOutput:\n"),
		protocol.FunctionCall("b", "exec_command", `{"cmd":"build"}`),
		protocol.FunctionCallOutput("b", "Chunk ID: 000002\nWall time: 0.2500 seconds\nProcess running with session ID 2222\nOriginal token count: 0\nOutput:\n"),
		protocol.FunctionCall("c", "write_stdin", `{"session_id":2222}`),
		protocol.FunctionCallOutput("c", "Chunk ID: 000003\nWall time: 1.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n"),
		protocol.FunctionCall("d", "exec_command", `{"cmd":"watch"}`),
		protocol.FunctionCallOutput("d", "Chunk ID: 000004\nWall time: 0.2500 seconds\nProcess running with session ID 3333\nOriginal token count: 0\nOutput:\n"),
		protocol.FunctionCall("e", "write_stdin", `{"session_id":3333}`),
		protocol.FunctionCallOutput("e", "write_stdin failed: Unknown process id 3333: …"),
	}
	if got := goneSessions(items); len(got) != 1 || got[0] != 1111 {
		t.Fatalf("gone sessions: %v", got)
	}
}
