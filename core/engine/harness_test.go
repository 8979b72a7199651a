package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/surface/collab"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// collabSurface offers seed 000's tools, which most engine tests drive.
func collabSurface(e Ops) (Surface, error) { return collab.New(e), nil }

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}

// turn is what a scripted role sees: the conversation since its last user
// message.
type turn struct {
	req     model.Request
	rounds  int
	outputs map[string]string
	prompt  string
	// from is the label line of a prompt another agent sent ("" for the user).
	from string
}

func (t turn) output(callID string) string { return t.outputs[callID] }

func (t turn) hasTool(name string) bool {
	for _, s := range t.req.Tools {
		if s.Name == name {
			return true
		}
	}
	return false
}

func parseTurn(req model.Request) turn {
	d := demo.ParseTurn(req.Items)
	tn := turn{req: req, rounds: d.Rounds, outputs: d.Outputs, prompt: d.Prompt}
	if strings.HasPrefix(tn.prompt, agentInputPrefix) {
		if i := strings.IndexByte(tn.prompt, '\n'); i >= 0 {
			tn.from, tn.prompt = tn.prompt[:i], tn.prompt[i+1:]
		}
	}
	return tn
}

// roleOf returns the role a request belongs to: "root" or the agent_type.
func roleOf(req model.Request) string {
	const marker = "# Your role: "
	i := strings.Index(req.Instructions, marker)
	if i < 0 {
		if strings.Contains(req.Instructions, "you are sub-agent") {
			return "default"
		}
		return "root"
	}
	rest := req.Instructions[i+len(marker):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// script dispatches a request to the function of its role.
type script map[string]func(ctx context.Context, t turn) (model.Response, error)

func (s script) fn() model.ScriptFunc {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		role := roleOf(req)
		f, ok := s[role]
		if !ok {
			return model.Response{Text: "no script for role " + role}, nil
		}
		return f(ctx, parseTurn(req))
	}
}

// inputText is an input message's text without the label line the model
// sees above a message from another agent.
func inputText(it protocol.Item) string {
	if strings.HasPrefix(it.Content, agentInputPrefix) {
		if i := strings.IndexByte(it.Content, '\n'); i >= 0 {
			return it.Content[i+1:]
		}
	}
	return it.Content
}

func toolCall(id, name string, args any) model.ToolCallRequest {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return model.ToolCallRequest{CallID: id, Name: name, Arguments: string(b)}
}

func calls(cs ...model.ToolCallRequest) model.Response { return model.Response{ToolCalls: cs} }

func text(s string) model.Response { return model.Response{Text: s} }

// block waits until the turn is cancelled (a child that keeps running).
func block(ctx context.Context, _ turn) (model.Response, error) {
	<-ctx.Done()
	return model.Response{}, ctx.Err()
}

type testEnv struct {
	t      *testing.T
	e      *Engine
	root   protocol.ThreadID
	home   string
	cwd    string
	events *recorder
}

// recorder keeps every event for assertions.
type recorder struct {
	mu     sync.Mutex
	events []protocol.Event
	cond   chan struct{}
}

func (r *recorder) add(ev protocol.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	old := r.cond
	r.cond = make(chan struct{})
	r.mu.Unlock()
	close(old)
}

func (r *recorder) snapshot() ([]protocol.Event, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]protocol.Event(nil), r.events...), r.cond
}

// waitFor blocks until an event matching pred arrives (generous deadline;
// it bounds a hang, it does not time anything).
func (env *testEnv) waitFor(what string, pred func(protocol.Event) bool) protocol.Event {
	env.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		evs, ch := env.events.snapshot()
		for _, ev := range evs {
			if pred(ev) {
				return ev
			}
		}
		select {
		case <-ch:
		case <-deadline:
			env.t.Fatalf("timed out waiting for %s; got %d events", what, len(evs))
		}
	}
}

func (env *testEnv) all(pred func(protocol.Event) bool) []protocol.Event {
	evs, _ := env.events.snapshot()
	var out []protocol.Event
	for _, ev := range evs {
		if pred(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// rootFinal waits for the root's n-th finished turn and returns the status
// it ended in (the first completed(null) is the idle root before any turn).
func (env *testEnv) rootFinal(n int) protocol.AgentStatus {
	env.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		evs, ch := env.events.snapshot()
		count := 0
		for _, ev := range evs {
			if ev.ThreadID == env.root && ev.Type == protocol.EventStatusChanged && ev.Status.Kind != protocol.StatusRunning && ev.Status.Kind != protocol.StatusPendingInit {
				count++
				if count == n+1 {
					return *ev.Status
				}
			}
		}
		select {
		case <-ch:
		case <-deadline:
			var b strings.Builder
			for _, ev := range evs {
				if ev.Type == protocol.EventMessageDelta {
					continue
				}
				fmt.Fprintf(&b, "\n  %s %s", ev.ThreadID.Short(), ev.Type)
				if ev.Status != nil {
					fmt.Fprintf(&b, " %v", *ev.Status)
				}
				if ev.Tool != nil {
					fmt.Fprintf(&b, " %s %s", ev.Tool.Name, clipText(ev.Tool.Output))
				}
			}
			env.t.Fatalf("timed out waiting for the root's turn %d to finish; events:%s", n, b.String())
		}
	}
}

// toolOutput returns the output of the tool call with callID.
func (env *testEnv) toolOutput(callID string) protocol.ToolCall {
	env.t.Helper()
	ev := env.waitFor("tool "+callID, func(ev protocol.Event) bool {
		return ev.Type == protocol.EventToolCallEnd && ev.Tool.CallID == callID
	})
	return *ev.Tool
}

func newEnv(t *testing.T, s script, mut func(*Options)) *testEnv {
	t.Helper()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	cwd := filepath.Join(base, "work")
	for _, d := range []string{home, cwd, filepath.Join(cwd, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{
		Home: home, Cwd: cwd, Provider: "test", Model: "test-model",
		Client:         model.NewScripted("test", s.fn()),
		Sandbox:        protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		ApprovalPolicy: protocol.ApprovalOnRequest,
		Templates:      templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home, UserHome: base}, templates.Options{}),
		Surfaces:       []SurfaceFactory{collabSurface},
	}
	if mut != nil {
		mut(&opts)
	}
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	e.waitMin = 20 * time.Millisecond
	rec := &recorder{cond: make(chan struct{})}
	events, cancel := e.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			rec.add(ev)
		}
	}()
	root, err := e.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	env := &testEnv{t: t, e: e, root: root, home: home, cwd: cwd, events: rec}
	t.Cleanup(func() {
		ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
		defer stop()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		cancel()
		<-done
		// Every event the engine published must read back as its typed
		// message: no payload missing, no kind the protocol does not know.
		evs, _ := rec.snapshot()
		for _, ev := range evs {
			if _, err := ev.Msg(); err != nil {
				t.Errorf("published a malformed event: %v", err)
			}
		}
	})
	return env
}

func (env *testEnv) send(text string) {
	env.t.Helper()
	if err := env.e.SubmitText(env.root, text); err != nil {
		env.t.Fatal(err)
	}
}

// spawnedID extracts agent_id from a spawn_agent output.
func spawnedID(t *testing.T, out string) protocol.ThreadID {
	t.Helper()
	var r struct {
		AgentID protocol.ThreadID `json:"agent_id"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.AgentID == "" {
		t.Fatalf("spawn_agent output %q is not a spawn result", out)
	}
	return r.AgentID
}

func agentIDFrom(out string) string {
	var r struct {
		AgentID string `json:"agent_id"`
	}
	_ = json.Unmarshal([]byte(out), &r)
	return r.AgentID
}

func clipText(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// killKeepingDisk stands in for kill -9: the engine stops, and the files
// are put back as they were before it did (whatever shutdown wrote is lost).
func (env *testEnv) killKeepingDisk() {
	t := env.t
	t.Helper()
	disk := snapshotDir(t, env.home)
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	restoreDir(t, env.home, disk)
}

// openBeside starts a second engine over env's home, as another grove
// process would, recording its events; its session is not opened yet.
func (env *testEnv) openBeside() (*Engine, *testEnv) {
	t := env.t
	t.Helper()
	e2, err := New(context.Background(), env.e.opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{cond: make(chan struct{})}
	events, cancel := e2.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			rec.add(ev)
		}
	}()
	t.Cleanup(func() {
		_ = e2.Shutdown(context.Background())
		cancel()
		<-done
	})
	return e2, &testEnv{t: t, e: e2, home: env.home, cwd: env.cwd, events: rec}
}

// resumeInNewEngine opens env's session in a fresh engine over the same
// home, as a new grove process would, recording its events.
func (env *testEnv) resumeInNewEngine() (*Engine, *testEnv) {
	env.t.Helper()
	e2, env2 := env.openBeside()
	root, err := e2.ResumeSession(string(env.root))
	if err != nil {
		env.t.Fatal(err)
	}
	env2.root = root
	return e2, env2
}
