package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// TestExecEndingWithChildrenRunning: the root ends its turn while its
// sub-agent works (docs/seeds.md 000-61). The command the sub-agent had
// finished keeps its real exit code; the one still running is stopped
// with the rest of the tree — reported as killed with its signal's code
// (or as not run, had it not started yet), never as a success — and its
// process is gone when grove exec returns.
func TestExecEndingWithChildrenRunning(t *testing.T) {
	noProviderEnv(t)
	cwd := t.TempDir()
	// The long command writes its pid into a FIFO as it starts: reading it
	// is the event that the command runs.
	// (outside the workspace: nothing of grove's ever opens it).
	fifo := filepath.Join(t.TempDir(), "sleeper.pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	pids := make(chan int, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the command opens it
		if err != nil {
			close(pids)
			return
		}
		defer f.Close()
		var pid int
		_, _ = fmt.Fscan(f, &pid)
		pids <- pid
	}()
	var pid int
	t.Cleanup(func() { // unblock the reader if the command never ran
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = w.Close()
		}
	})
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		role, text := lastMessage(r)
		if strings.Contains(firstUserText(r), "kid:") {
			if role == "tool" && strings.Contains(text, "Process exited with code 3") {
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "k2", Name: "exec_command", Arguments: fmt.Sprintf(`{"cmd":"echo $$ > %s; exec sleep 30"}`, fifo)}}}
			}
			if role == "tool" {
				return modeltest.Reply{Text: "kid done"}
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "exec_command", Arguments: `{"cmd":"echo fast; exit 3","timeout_ms":600000}`}}}
		}
		if role == "tool" {
			select { // the root ends only once its kid's long command runs
			case pid = <-pids:
			case <-time.After(2 * time.Minute): // a hang guard, not a timing assert
			}
			return modeltest.Reply{Text: "root done"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "spawn_agent", Arguments: `{"message":"kid: run the commands"}`}}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--json=grove", "--cd", cwd, "-m", "test-model", "-s", "danger-full-access", "go")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	ends := map[string]map[string]any{}
	closed := map[string]bool{}
	for _, ev := range execEvents(t, out) {
		switch ev["type"] {
		case "tool_call_end":
			tool := ev["tool"].(map[string]any)
			ends[fmt.Sprint(tool["call_id"])] = tool
		case "thread_closed":
			closed[fmt.Sprint(ev["thread_id"])] = true
		}
	}
	if k1 := ends["k1"]; k1 == nil || k1["exit_code"] != float64(3) || k1["is_error"] == true || strings.Contains(fmt.Sprint(k1["output"]), "interrupted") {
		t.Errorf("the finished command: %v", k1)
	}
	k2 := ends["k2"]
	code, _ := k2["exit_code"].(float64)
	output := fmt.Sprint(k2["output"])
	switch {
	case k2 == nil:
		t.Errorf("no tool_call_end for the running command\n%s", out)
	case k2["is_error"] != true:
		t.Errorf("the stopped command reads as a success: %v", k2)
	case strings.Contains(output, "interrupted and killed") && code < 128:
		t.Errorf("killed with exit code %v: %v", code, k2)
	case !strings.Contains(output, "interrupted and killed") && !strings.Contains(output, "command was not run"):
		t.Errorf("the stopped command: %v", k2)
	}
	if len(closed) < 2 {
		t.Errorf("threads closed: %v, want the root and the kid", closed)
	}
	if pid <= 0 {
		t.Fatalf("the long command never ran\n%s", out)
	}
	if syscall.Kill(pid, 0) == nil {
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(st), ") Z ") {
			t.Errorf("the sub-agent's command (pid %d) outlived grove exec", pid)
		}
	}
}
