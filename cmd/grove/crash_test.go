package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// fanOut is the scripted model of the crash suite: the root spawns three
// workers, runs a command and waits for them; worker i runs `echo out-i`,
// then a long command, then answers. A hold makes one worker's model call
// hang (a kill while the model is answering).
type fanOut struct {
	marker string
	srv    *modeltest.Server

	mu      sync.Mutex
	seen    map[string]map[string]string // thread (first user message) -> call id -> output the model received
	hold    string                       // first user message whose second call hangs
	held    bool
	release chan struct{}
}

const rootPrompt = "fan out to three workers"

func newFanOut(t *testing.T, marker, hold string) *fanOut {
	f := &fanOut{marker: marker, seen: map[string]map[string]string{}, hold: hold, release: make(chan struct{})}
	f.srv = modeltest.NewServer(t)
	// Registered after the server: cleanups run last first, so a held
	// request is released before the server waits for its handlers.
	t.Cleanup(func() { close(f.release) })
	f.srv.Handle(f.reply)
	return f
}

// partLabel finds "part N" in a worker's first message (the engine puts a
// line naming the sending agent above it).
var partLabel = regexp.MustCompile(`part \d+`)

// threadOf names the thread a request belongs to: the root prompt or
// "part N".
func threadOf(firstUser string) string {
	if firstUser == rootPrompt {
		return rootPrompt
	}
	return partLabel.FindString(firstUser)
}

func (f *fanOut) reply(r modeltest.CapturedRequest) modeltest.Reply {
	cr := parseChat(r)
	cr.firstUser = threadOf(cr.firstUser)
	f.mu.Lock()
	if f.seen[cr.firstUser] == nil {
		f.seen[cr.firstUser] = map[string]string{}
	}
	for id, out := range cr.outputs {
		f.seen[cr.firstUser][id] = out
	}
	hold := cr.firstUser == f.hold && len(cr.outputs) == 1
	if hold {
		f.held = true
	}
	f.mu.Unlock()
	if hold {
		<-f.release
		return modeltest.Reply{Status: 500, Body: `{"error":{"message":"released"}}`}
	}
	call := func(id, name, args string) modeltest.Reply {
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	long := fmt.Sprintf(`{"cmd":"sleep 30; echo %s"}`, f.marker)
	if cr.firstUser == rootPrompt {
		switch {
		case cr.lastUser == "continue after the crash":
			return modeltest.Reply{Text: "resumed"}
		case len(cr.outputs) == 0:
			var calls []modeltest.ToolCall
			for i := range 3 {
				calls = append(calls, modeltest.ToolCall{ID: fmt.Sprintf("sp%d", i), Name: "spawn_agent", Arguments: fmt.Sprintf(`{"message":"part %d"}`, i)})
			}
			return modeltest.Reply{ToolCalls: calls}
		case len(cr.outputs) == 3:
			var ids []string
			for i := range 3 {
				ids = append(ids, fmt.Sprintf("%q", agentIDOf(cr.outputs[fmt.Sprintf("sp%d", i)])))
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
				{ID: "r-echo", Name: "exec_command", Arguments: `{"cmd":"echo root-out"}`},
				{ID: "r-wait", Name: "wait", Arguments: fmt.Sprintf(`{"ids":[%s],"timeout_ms":120000}`, strings.Join(ids, ","))},
			}}
		}
		return modeltest.Reply{Text: "all done"}
	}
	var part int
	if _, err := fmt.Sscanf(cr.firstUser, "part %d", &part); err != nil {
		return modeltest.Reply{Text: "unknown thread"}
	}
	switch len(cr.outputs) {
	case 0:
		return call(fmt.Sprintf("c%d-echo", part), "exec_command", fmt.Sprintf(`{"cmd":"echo out-%d"}`, part))
	case 1:
		return call(fmt.Sprintf("c%d-long", part), "exec_command", long)
	}
	return modeltest.Reply{Text: fmt.Sprintf("part %d done", part)}
}

func agentIDOf(spawnOutput string) string {
	i := strings.Index(spawnOutput, `"agent_id":"`)
	if i < 0 {
		return ""
	}
	rest := spawnOutput[i+len(`"agent_id":"`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// seenBy returns what the model had received in thread's requests so far.
func (f *fanOut) seenBy(thread string) map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for k, v := range f.seen[thread] {
		out[k] = v
	}
	return out
}

func (f *fanOut) isHeld() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held
}

// rolloutHas reports whether some rollout under home holds every marker.
func rolloutHas(home string, markers ...string) bool {
	p := findRollout(home, markers[0])
	if p == "" {
		return false
	}
	b, _ := os.ReadFile(p)
	for _, m := range markers[1:] {
		if !strings.Contains(string(b), m) {
			return false
		}
	}
	return true
}

// TestCrashSuite kills grove with SIGKILL at several points of a fan-out
// run, then resumes the session: every tool output the model had received
// is in the resumed history of its thread (the root's next request, the
// workers' rollouts), and the calls still running are answered as aborted.
func TestCrashSuite(t *testing.T) {
	needBinary(t)
	points := []struct {
		name string
		hold string // worker whose model call hangs at the kill
		when func(f *fanOut, home string) bool
	}{
		{"after the spawns, workers starting", "", func(f *fanOut, home string) bool {
			return len(f.seenBy(rootPrompt)) == 3
		}},
		{"tools running in every thread", "", func(f *fanOut, home string) bool {
			for i := range 3 {
				if len(f.seenBy(fmt.Sprintf("part %d", i))) != 1 || !rolloutHas(home, fmt.Sprintf(`"call_id":"c%d-long"`, i), `"tool_call_begin"`) {
					return false
				}
			}
			return rolloutHas(home, `"call_id":"r-wait"`, `"tool_call_begin"`)
		}},
		{"a model call in flight", "part 1", func(f *fanOut, home string) bool {
			return f.isHeld() && len(f.seenBy("part 0")) == 1 && len(f.seenBy("part 2")) == 1
		}},
	}
	for i, pt := range points {
		t.Run(pt.name, func(t *testing.T) {
			marker := fmt.Sprintf("grove-crash-suite-%d-%d", os.Getpid(), i)
			defer killMarked(marker)
			f := newFanOut(t, marker, pt.hold)
			home := filepath.Join(t.TempDir(), "home")
			work := t.TempDir()
			env := providerEnv(home, f.srv.URL())
			args := []string{"-a", "never", "-s", "danger-full-access", "--cd", work, "-m", "test-model"}
			p := startGrove(t, env, append(append([]string{"exec"}, args...), rootPrompt)...)
			testkit.Eventually(t, "the kill point", func() bool { return pt.when(f, home) }, p.stderr.String)
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-p.done
			// What each thread's model had received at the kill.
			seen := map[string]map[string]string{rootPrompt: f.seenBy(rootPrompt)}
			for i := range 3 {
				seen[fmt.Sprintf("part %d", i)] = f.seenBy(fmt.Sprintf("part %d", i))
			}
			// Commands the killed grove had started die with it (the
			// sandbox helper watches grove's pidfd and ends their trees).
			testkit.Eventually(t, "no command left running after the kill", func() bool { return len(markedPIDs(marker)) == 0 }, func() string {
				return fmt.Sprintf("still running: %v", markedPIDs(marker))
			})
			killMarked(marker)

			entries, _, err := rollout.ListSessions(home, 0, 1)
			if err != nil || len(entries) != 1 {
				t.Fatalf("session index after the kill: %v %v", entries, err)
			}
			r := startGrove(t, env, append(append([]string{"exec", "--resume", string(entries[0].ID)}, args...), "continue after the crash")...)
			if code, _ := r.waitExit(t, time.Now()); code != 0 {
				t.Fatalf("resume exit %d\nstderr:\n%s", code, r.stderr.String())
			}
			// The root: its next request carried everything it had seen.
			var next chatRequest
			for _, req := range f.srv.Requests() {
				if cr := parseChat(req); threadOf(cr.firstUser) == rootPrompt && cr.lastUser == "continue after the crash" {
					next = cr
				}
			}
			for id, out := range seen[rootPrompt] {
				if next.outputs[id] != out {
					t.Errorf("root: output of %s lost on resume: got %q, want %q", id, next.outputs[id], out)
				}
			}
			if seen[rootPrompt]["sp0"] != "" && next.outputs["r-wait"] != "" && next.outputs["r-wait"] != engine.AbortedByExit {
				t.Errorf("root: the running wait resumed as %q", next.outputs["r-wait"])
			}
			checked := len(seen[rootPrompt])
			for i := range 3 {
				checked += len(seen[fmt.Sprintf("part %d", i)])
			}
			t.Logf("tool outputs the model had received at the kill: %d", checked)
			if checked == 0 {
				t.Fatal("the kill point came before any tool output reached the model")
			}
			notice := false
			for _, u := range next.texts {
				notice = notice || strings.Contains(u, "previous turn was interrupted")
			}
			if !notice {
				t.Errorf("root: the model was not told of the crash: %q", next.texts)
			}
			// The workers: their rollouts (repaired on resume) hold what
			// their model had seen, and nothing is left unanswered.
			for i := range 3 {
				thread := fmt.Sprintf("part %d", i)
				sess := workerRollout(t, home, thread)
				if sess == nil {
					if len(seen[thread]) > 0 {
						t.Fatalf("%s: no rollout", thread)
					}
					continue
				}
				got := map[string]string{}
				calls := map[string]bool{}
				for _, it := range sess.Items {
					switch it.Type {
					case protocol.ItemFunctionCallOutput:
						got[it.CallID] = it.Output
					case protocol.ItemFunctionCall:
						calls[it.CallID] = true
					}
				}
				for id, out := range seen[thread] {
					if got[id] != out {
						t.Errorf("%s: output of %s lost: got %q, want %q", thread, id, got[id], out)
					}
				}
				for id := range calls {
					if _, ok := got[id]; !ok {
						t.Errorf("%s: call %s left without an output after resume", thread, id)
					}
				}
				if long := got[fmt.Sprintf("c%d-long", i)]; long != "" && long != engine.AbortedByExit {
					t.Errorf("%s: the running command resumed as %q", thread, long)
				}
			}
		})
	}
}

// workerRollout reads the rollout of the sub-agent whose first message
// names thread ("part N"), nil if it has none yet.
func workerRollout(t *testing.T, home, thread string) *rollout.Session {
	t.Helper()
	var found *rollout.Session
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != nil {
			return nil
		}
		sess, err := rollout.Read(p)
		if err != nil || sess.Meta.ParentID == "" {
			return nil
		}
		for _, it := range sess.Items {
			if it.Type == protocol.ItemMessage {
				if threadOf(it.Content) == thread {
					found = sess
				}
				break
			}
		}
		return nil
	})
	return found
}

var middleLabel = regexp.MustCompile(`middle \d+`)

// TestDeepTreeExitsOnSignal: a tree of 12 sub-agents (3 children with 3
// grandchildren each, max_depth = 2), all busy, and grove exec exits on
// SIGINT and on SIGTERM (bounded generously; the time is logged, not
// asserted).
func TestDeepTreeExitsOnSignal(t *testing.T) {
	needBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			marker := fmt.Sprintf("grove-deep-tree-%d-%d", os.Getpid(), tc.sig)
			defer killMarked(marker)
			s := modeltest.NewServer(t)
			var mu sync.Mutex
			sleeping := 0
			s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
				cr := parseChat(r)
				leaf := strings.Contains(cr.firstUser, "leaf of")
				if len(cr.outputs) > 0 && leaf {
					return modeltest.Reply{Text: "done"}
				}
				spawn := func(prefix string) modeltest.Reply {
					if len(cr.outputs) == 3 {
						var ids []string
						for i := range 3 {
							ids = append(ids, fmt.Sprintf("%q", agentIDOf(cr.outputs[fmt.Sprintf("sp%d", i)])))
						}
						return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "w", Name: "wait", Arguments: fmt.Sprintf(`{"ids":[%s],"timeout_ms":600000}`, strings.Join(ids, ","))}}}
					}
					if len(cr.outputs) > 3 {
						return modeltest.Reply{Text: "waited"}
					}
					var calls []modeltest.ToolCall
					for i := range 3 {
						calls = append(calls, modeltest.ToolCall{ID: fmt.Sprintf("sp%d", i), Name: "spawn_agent", Arguments: fmt.Sprintf(`{"message":"%s %d"}`, prefix, i)})
					}
					return modeltest.Reply{ToolCalls: calls}
				}
				switch {
				case cr.firstUser == "deep":
					return spawn("middle")
				case !leaf:
					return spawn("leaf of " + middleLabel.FindString(cr.firstUser))
				}
				mu.Lock()
				sleeping++
				mu.Unlock()
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "long", Name: "exec_command", Arguments: fmt.Sprintf(`{"cmd":"sleep 60; echo %s"}`, marker)}}}
			})
			home := filepath.Join(t.TempDir(), "home")
			p := startGrove(t, providerEnv(home, s.URL()), "exec", "-a", "never", "-s", "danger-full-access", "--cd", t.TempDir(), "-m", "test-model",
				"-c", "agents.max_depth=2", "-c", "agents.max_threads=16", "deep")
			testkit.Eventually(t, "12 busy sub-agents", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return sleeping == 9
			}, p.stderr.String)
			sent := time.Now()
			if err := p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			code, took := p.waitExit(t, sent)
			t.Logf("%s with 12 sub-agents: exit %d after %s", tc.sig, code, took)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.code, p.stderr.String())
			}
		})
	}
}
