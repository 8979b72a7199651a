package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
)

// groveBin is the real binary, built once by TestMain for the tests that
// signal or kill a running grove.
var groveBin string

// buildGrove builds the binary into dir; it returns "" (tests skip) when no
// Go toolchain is at hand.
func buildGrove(dir string) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", nil
	}
	bin := filepath.Join(dir, "grove")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build grove: %v\n%s", err, out)
	}
	return bin, nil
}

func needBinary(t *testing.T) {
	t.Helper()
	if groveBin == "" {
		t.Skip("no go toolchain to build the grove binary")
	}
}

// chatRequest is what one captured Chat Completions request says.
type chatRequest struct {
	firstUser string            // the thread's first user message: who is asking
	lastUser  string            // the latest user message
	outputs   map[string]string // tool_call_id -> content the model received
	texts     []string          // every user message
}

func parseChat(r modeltest.CapturedRequest) chatRequest {
	cr := chatRequest{outputs: map[string]string{}}
	msgs, _ := r.Body["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		content, _ := msg["content"].(string)
		switch msg["role"] {
		case "user":
			if cr.firstUser == "" {
				cr.firstUser = content
			}
			cr.lastUser = content
			cr.texts = append(cr.texts, content)
		case "tool":
			id, _ := msg["tool_call_id"].(string)
			cr.outputs[id] = content
		}
	}
	return cr
}

// groveProc is a running grove binary.
type groveProc struct {
	cmd    *exec.Cmd
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// providerEnv points the binary at the in-process model server.
func providerEnv(home, url string) []string {
	env := []string{"GROVE_HOME=" + home, "OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=sk-test-not-secret", "TMPDIR=" + filepath.Dir(home)}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GROVE_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY", "TMPDIR":
		default:
			env = append(env, kv)
		}
	}
	return env
}

func startGrove(t *testing.T, env []string, args ...string) *groveProc {
	t.Helper()
	p := &groveProc{cmd: exec.Command(groveBin, args...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitExit waits (bounded generously: this catches hangs, it times
// nothing) and returns the exit status and how long it took.
func (p *groveProc) waitExit(t *testing.T, since time.Time) (int, time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("grove did not exit within 60 s\nstderr:\n%s", p.stderr.String())
	}
	took := time.Since(since)
	if p.cmd.ProcessState == nil {
		t.Fatalf("no exit status: %v", p.err)
	}
	return p.cmd.ProcessState.ExitCode(), took
}

// killMarked kills processes whose command line holds marker (commands a
// killed grove left behind; the sandbox owns making them die with grove).
func killMarked(marker string) (left int) {
	pids := markedPIDs(marker)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// markedPIDs lists the live processes whose command line holds marker
// (zombies have none).
func markedPIDs(marker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestSignalsShutDownLikeCtrlC: SIGTERM and SIGHUP to a headless grove in
// the middle of a tool call interrupt it, flush and close the rollout, and
// exit with 143 and 129.
func TestSignalsShutDownLikeCtrlC(t *testing.T) {
	needBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			marker := fmt.Sprintf("grove-signal-test-%d-%d", os.Getpid(), tc.sig)
			defer killMarked(marker)
			s := modeltest.NewServer(t)
			s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
				if len(parseChat(r).outputs) > 0 {
					return modeltest.Reply{Text: "done"}
				}
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "long", Name: "exec_command", Arguments: fmt.Sprintf(`{"cmd":"sleep 30; echo %s"}`, marker)}}}
			})
			home := filepath.Join(t.TempDir(), "home")
			p := startGrove(t, providerEnv(home, s.URL()), "exec", "-a", "never", "-s", "danger-full-access", "--cd", t.TempDir(), "-m", "test-model", "work")
			var rollout string
			testkit.Eventually(t, "the tool call to start", func() bool {
				rollout = findRollout(home, "")
				b, _ := os.ReadFile(rollout)
				return bytes.Contains(b, []byte(`"type":"tool_call_begin"`))
			}, p.stderr.String)
			sent := time.Now()
			if err := p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			code, took := p.waitExit(t, sent)
			t.Logf("%s: exit %d after %s", tc.sig, code, took)
			if code != tc.code {
				t.Fatalf("exit status %d, want %d\nstderr:\n%s", code, tc.code, p.stderr.String())
			}
			b, _ := os.ReadFile(rollout)
			for _, want := range []string{`"type":"function_call_output","call_id":"long"`, `"type":"thread_closed"`, `"shutdown"`} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("rollout lacks %s:\n%s", want, b)
				}
			}
			if want := map[syscall.Signal]string{syscall.SIGTERM: "terminated by SIGTERM", syscall.SIGHUP: "terminated by SIGHUP"}[tc.sig]; !strings.Contains(p.stderr.String(), want) {
				t.Errorf("stderr: %s", p.stderr.String())
			}
			logb, _ := os.ReadFile(filepath.Join(home, "log", "grove.log"))
			if !bytes.Contains(logb, []byte(`"msg":"shutdown: signal received"`)) || !bytes.Contains(logb, []byte(`"msg":"shutdown: done"`)) {
				t.Errorf("shutdown not logged:\n%s", logb)
			}
		})
	}
}

// findRollout returns the rollout file under home whose text holds marker
// (the first one when marker is ""), or "".
func findRollout(home, marker string) string {
	var found string
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		if marker == "" {
			found = p
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(marker)) {
			found = p
		}
		return nil
	})
	return found
}
