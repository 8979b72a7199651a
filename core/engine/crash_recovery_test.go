package engine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// snapshotDir reads every file under dir: the disk as a kill -9 leaves it.
func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// restoreDir puts dir back to a snapshot, dropping what was written since.
func restoreDir(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func outputOf(items []protocol.Item, callID string) (string, int) {
	out, n := "", 0
	for _, it := range items {
		if it.Type == protocol.ItemFunctionCallOutput && it.CallID == callID {
			out, n = it.Output, n+1
		}
	}
	return out, n
}

func countNotices(items []protocol.Item) int {
	n := 0
	for _, it := range items {
		if it.Role == protocol.RoleUser && it.IsGroveNotice() && strings.HasPrefix(it.Content, "[grove] Your previous turn was interrupted") {
			n++
		}
	}
	return n
}

// TestResumeAfterKillMidTurn: grove dies while a root and its child run
// tools. The files as the kill left them resume with every output the
// model had seen, the output of a call that finished but was never sent,
// the still-running calls answered as aborted, the turn interrupted, and a
// notice the model receives on the next turn; a second resume adds nothing.
func TestResumeAfterKillMidTurn(t *testing.T) {
	var mu sync.Mutex
	var nextReq model.Request
	s := script{
		"root": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.prompt == "carry on" {
				mu.Lock()
				nextReq = tn.req
				mu.Unlock()
				return text("resumed"), nil
			}
			switch tn.rounds {
			case 0:
				return calls(toolCall("a", "exec_command", map[string]any{"cmd": "echo first-output"})), nil
			case 1:
				return calls(toolCall("sp", "spawn_agent", map[string]any{"agent_type": "worker", "message": "work"})), nil
			case 2:
				return calls(
					toolCall("b", "exec_command", map[string]any{"cmd": "echo finished-early"}),
					toolCall("c", "exec_command", map[string]any{"cmd": "sleep 60"}),
					toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("sp"))}}),
				), nil
			}
			return text("unreachable"), nil
		},
		"worker": func(ctx context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("ca", "exec_command", map[string]any{"cmd": "echo child-out"})), nil
			case 1:
				return calls(toolCall("cb", "exec_command", map[string]any{"cmd": "sleep 60"})), nil
			}
			return text("unreachable"), nil
		},
	}
	env := newEnv(t, s, nil)
	env.send("go")
	env.toolOutput("b")
	env.toolOutput("ca")
	for _, id := range []string{"c", "w", "cb"} {
		env.waitFor("begin "+id, func(ev protocol.Event) bool {
			return ev.Type == protocol.EventToolCallBegin && ev.Tool.CallID == id
		})
	}
	child := spawnedID(t, env.toolOutput("sp").Output)
	// The bus hears of b's end just before its line reaches the file; the
	// kill comes after the write (the calls' beginnings, announced in call
	// order, no longer give it that time).
	rootPath := env.e.thread(env.root).info().RolloutPath
	testkit.Eventually(t, "b's output in the root's rollout", func() bool {
		b, _ := os.ReadFile(rootPath)
		return strings.Contains(string(b), `\nfinished-early`) // the output, not the command
	})
	// kill -9: the disk as it is now; whatever the shutdown writes is lost.
	env.killKeepingDisk()

	e2, env2 := env.resumeInNewEngine()
	h := e2.History(env.root)
	for id, want := range map[string]string{"a": "first-output", "b": "finished-early", "c": AbortedByExit, "w": AbortedByExit} {
		if out, n := outputOf(h, id); n != 1 || !strings.Contains(out, want) {
			t.Errorf("root call %s: %d outputs, %q; want one with %q", id, n, out, want)
		}
	}
	if n := countNotices(h); n != 1 || !strings.Contains(h[len(h)-1].Content, "exec_command (call c)") {
		t.Errorf("%d notices; last item %+v", n, h[len(h)-1])
	}
	if st, _ := e2.thread(env.root).Status(); st.Kind != protocol.StatusInterrupted {
		t.Errorf("resumed root status %v, want interrupted", st)
	}
	env2.waitFor("crash warning", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventWarning && strings.Contains(ev.Message, "interrupted: grove exited")
	})
	// The child's rollout was repaired too (it is closed, resumable).
	ch := e2.History(child)
	if out, n := outputOf(ch, "ca"); n != 1 || !strings.Contains(out, "child-out") {
		t.Errorf("child call ca: %d outputs %q", n, out)
	}
	if out, n := outputOf(ch, "cb"); n != 1 || out != AbortedByExit {
		t.Errorf("child call cb: %d outputs %q", n, out)
	}
	childSess, err := rollout.Read(e2.thread(child).info().RolloutPath)
	if err != nil || countNotices(childSess.Items) != 1 || childSess.LastStatus == nil || childSess.LastStatus.Kind != protocol.StatusInterrupted {
		t.Fatalf("child rollout after repair: %v %+v", err, childSess)
	}

	// The model hears of it on the next turn.
	if err := e2.SubmitText(env.root, "carry on"); err != nil {
		t.Fatal(err)
	}
	env2.waitFor("next turn", func(ev protocol.Event) bool {
		return ev.ThreadID == env.root && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusCompleted && ev.Status.Message == "resumed"
	})
	mu.Lock()
	if countNotices(nextReq.Items) != 1 {
		t.Errorf("the next request does not carry the notice: %+v", nextReq.Items)
	}
	mu.Unlock()
	if err := e2.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	// A clean shutdown after the repair: a second resume repairs nothing.
	e3, _ := env.resumeInNewEngine()
	h3 := e3.History(env.root)
	if countNotices(h3) != 1 {
		t.Errorf("second resume: %d notices", countNotices(h3))
	}
	if _, n := outputOf(h3, "c"); n != 1 {
		t.Errorf("second resume: %d outputs for c", n)
	}
	if st, _ := e3.thread(env.root).Status(); st.Kind != protocol.StatusCompleted || st.Message != "resumed" {
		t.Errorf("second resume status %v", st)
	}
}

// TestPlanCrashRepairCleanRollout: a rollout whose turns all completed
// needs no repair.
func TestPlanCrashRepairCleanRollout(t *testing.T) {
	st := protocol.Completed("ok", true)
	sess := &rollout.Session{
		Items: []protocol.Item{protocol.UserMessage("hi"), protocol.FunctionCall("c1", "x", "{}"), protocol.FunctionCallOutput("c1", "o"), protocol.AssistantMessage("ok")},
		Events: []protocol.Event{
			{Type: protocol.EventTurnStarted, TurnID: "t1"},
			{Type: protocol.EventTurnCompleted, TurnID: "t1"},
		},
		LastStatus: &st,
	}
	if r := planCrashRepair(sess); r != nil {
		t.Fatalf("clean rollout planned a repair: %+v", r)
	}
}
