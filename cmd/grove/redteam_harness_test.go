package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// The red-team suite drives the real binary (`grove exec --json`) against
// a scripted hostile model: each thread of the session follows a script
// (a list of steps; step k is answered after k earlier tool-call replies
// in that thread) that emits attack tool calls, and every tool output the
// model receives is kept so the attack can be judged on what the model
// saw as well as on what changed on disk.

// strictEnv un-skips the attacks that still escape today.
const strictEnv = "GROVE_REDTEAM_STRICT"

// knownEscape skips an attack that succeeds on today's code unless
// GROVE_REDTEAM_STRICT=1 (then the test runs and is expected to fail until
// the fix lands; remove the call once it passes).
func knownEscape(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(strictEnv) != "1" {
		t.Skip("known escape: " + what)
	}
}

// rtStep returns the tool calls of one model reply (none: the thread
// answers "done").
type rtStep func(h *hostile) []modeltest.ToolCall

// call is one tool call with JSON arguments built from v (a string is
// used as is).
func call(id, name string, v any) modeltest.ToolCall {
	args, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		args = string(b)
	}
	return modeltest.ToolCall{ID: id, Name: name, Arguments: args}
}

// calls is a step that always emits the same calls.
func calls(c ...modeltest.ToolCall) rtStep {
	return func(*hostile) []modeltest.ToolCall { return c }
}

// sh is a step running one command (extra fields merge into the args).
func sh(id, cmd string, extra ...any) rtStep {
	args := map[string]any{"cmd": cmd}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	return calls(call(id, "exec_command", args))
}

// scriptLabel names the script a thread follows: the root's prompt and
// every spawned agent's message carry "script:<name>".
var scriptLabel = regexp.MustCompile(`script:[a-z0-9_-]+`)

// hostile is the scripted model.
type hostile struct {
	srv     *modeltest.Server
	scripts map[string][]rtStep

	mu      sync.Mutex
	outputs map[string]string   // call id -> the tool output the model received
	texts   map[string][]string // script -> user/agent messages its thread received
	systems map[string]string   // script -> its thread's system/developer messages
	offered map[string][]string // script -> the tool names its thread was offered
}

func newHostile(t *testing.T, scripts map[string][]rtStep) *hostile {
	h := &hostile{srv: modeltest.NewServer(t), scripts: scripts, outputs: map[string]string{}, texts: map[string][]string{}, systems: map[string]string{}, offered: map[string][]string{}}
	h.srv.Handle(h.reply)
	return h
}

func (h *hostile) reply(r modeltest.CapturedRequest) modeltest.Reply {
	msgs := r.Messages()
	label, steps := "", 0
	var texts []string
	var system strings.Builder
	h.mu.Lock()
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		content, _ := msg["content"].(string)
		switch msg["role"] {
		case "system", "developer":
			system.WriteString(content)
		case "user":
			if label == "" {
				label = strings.TrimPrefix(scriptLabel.FindString(content), "script:")
			}
			texts = append(texts, content)
		case "assistant":
			if tc, _ := msg["tool_calls"].([]any); len(tc) > 0 {
				steps++
			}
		case "tool":
			id, _ := msg["tool_call_id"].(string)
			h.outputs[id] = content
		}
	}
	h.texts[label] = texts
	h.systems[label] = system.String()
	h.offered[label] = r.ToolNames()
	h.mu.Unlock()
	script := h.scripts[label]
	if steps < len(script) {
		if c := script[steps](h); len(c) > 0 {
			return modeltest.Reply{ToolCalls: c}
		}
	}
	return modeltest.Reply{Text: "done " + label}
}

// out returns what the model received for call id ("" if nothing yet).
func (h *hostile) out(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.outputs[id]
}

// received returns the messages the thread of script received.
func (h *hostile) received(script string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.texts[script]...)
}

// system returns the system prompt the thread of script was given.
func (h *hostile) system(script string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.systems[script]
}

// tools returns the tool names the thread of script was offered.
func (h *hostile) tools(script string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.offered[script]...)
}

// rtEnv is one attack's world: a workspace, a victim directory standing
// for the user's home outside every writable root, grove's home and temp.
type rtEnv struct {
	base, ws, victim, groveHome, tmp string
	h                                *hostile
	stdout, stderr                   string
	code                             int
	prep                             func(*exec.Cmd) // adjusts grove's process before it starts
	grovePID                         atomic.Int64    // the running grove's pid (as this test sees it)
}

func newRTEnv(t *testing.T) *rtEnv {
	t.Helper()
	base := t.TempDir()
	e := &rtEnv{base: base, ws: filepath.Join(base, "ws"), victim: filepath.Join(base, "victim"), groveHome: filepath.Join(base, "grovehome"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{e.ws, e.victim, e.groveHome, e.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(e.victim, "secret"), "victim-original\n")
	writeFile(t, filepath.Join(e.ws, "f.txt"), "line1\nline2\n")
	return e
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rtSecret is the provider key grove runs with: no command may see it.
const rtSecret = "sk-redteam-SECRET-9f3a71"

// rtRun runs `grove exec --json` in e.ws with the scripted model; args are
// extra global flags (e.g. "-a", "untrusted"). grove's own process
// directory is the victim, so /proc/<grove>/cwd points outside the
// workspace.
func (e *rtEnv) run(t *testing.T, scripts map[string][]rtStep, extraEnv []string, args ...string) {
	t.Helper()
	needBinary(t)
	e.h = newHostile(t, scripts)
	env := []string{"GROVE_HOME=" + e.groveHome, "OPENAI_BASE_URL=" + e.h.srv.URL(), "OPENAI_API_KEY=" + rtSecret,
		"TMPDIR=" + e.tmp, "HOME=" + e.victim, "GITHUB_TOKEN=ghp-redteam-TOKEN-55e1", "ANTHROPIC_API_KEY=" + rtSecret + "-anthropic"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GROVE_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY", "TMPDIR", "HOME", "GITHUB_TOKEN", "ANTHROPIC_API_KEY", strictEnv:
		default:
			if strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_TOKEN") {
				continue
			}
			env = append(env, kv)
		}
	}
	env = append(env, extraEnv...)
	// The victim lives under /tmp, a temp root of workspace-write by
	// default (as in Codex): the harness excludes it, so only the
	// workspace and its own TMPDIR are writable.
	full := append([]string{"exec", "--json=grove", "--cd", e.ws, "-m", "test-model", "-c", "sandbox_workspace_write.exclude_slash_tmp=true"}, args...)
	full = append(full, "script:root")
	p := startGroveIn(t, env, e.victim, e.prep, full...)
	e.grovePID.Store(int64(p.cmd.Process.Pid))
	e.code, _ = p.waitExit(t, time.Now())
	e.stdout, e.stderr = p.stdout.String(), p.stderr.String()
}

// startGroveIn is startGrove with the process's working directory set
// and a hook to adjust the command.
func startGroveIn(t *testing.T, env []string, dir string, prep func(*exec.Cmd), args ...string) *groveProc {
	t.Helper()
	p := &groveProc{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(groveBin, args...)
	p.cmd.Dir = dir
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if prep != nil {
		prep(p.cmd)
	}
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

// diag is what a failing attack prints: the exit, stderr and the tool
// outputs the model received.
func (e *rtEnv) diag() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d; stderr: %.800s\n", e.code, e.stderr)
	if e.h != nil {
		e.h.mu.Lock()
		for id, o := range e.h.outputs {
			fmt.Fprintf(&b, "  output %s: %.300q\n", id, o)
		}
		e.h.mu.Unlock()
	}
	return b.String()
}

// mustNotExist fails when path exists (the attack wrote it).
func mustNotExist(t *testing.T, e *rtEnv, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		b, _ := os.ReadFile(path)
		t.Errorf("ESCAPE: %s was created (content %q)\n%s", path, b, e.diag())
	}
}

// mustHold fails when path's content is no longer want.
func mustHold(t *testing.T, e *rtEnv, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("ESCAPE: %s changed: %q (err %v), want %q\n%s", path, b, err, want, e.diag())
	}
}

// outputLacks fails when the model's output of call id holds any of bad.
func outputLacks(t *testing.T, e *rtEnv, id string, bad ...string) {
	t.Helper()
	o := e.h.out(id)
	for _, b := range bad {
		if strings.Contains(o, b) {
			t.Errorf("ESCAPE: call %s showed the model %q:\n%s", id, b, o)
		}
	}
}
