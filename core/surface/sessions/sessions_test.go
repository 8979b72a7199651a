package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var roleRe = regexp.MustCompile(`# Your role: (\S+)`)

// whoOf names the asking thread: "root", or a child by its prompt's
// first word.
func whoOf(req model.Request) string {
	if !roleRe.MatchString(req.Instructions) {
		return "root"
	}
	return surfacetest.TaskWord(req)
}

var call = surfacetest.ToolCall

func say(text string) model.Response { return model.Response{Text: text} }

// outputOf is a call's output in a request's conversation.
func outputOf(req model.Request, callID string) string {
	for _, it := range req.Items {
		if it.Type == protocol.ItemFunctionCallOutput && it.CallID == callID {
			return it.Output
		}
	}
	return ""
}

func sessionID(t *testing.T, out string) string {
	var m struct {
		ID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.ID == "" {
		t.Errorf("no session_id in %q", out)
		return "missing"
	}
	return m.ID
}

func start(t *testing.T, c model.Client, profiles map[string]Profile) (*engine.Engine, protocol.ThreadID) {
	t.Helper()
	env := surfacetest.Start(t, surfacetest.Config{
		Client: c, Model: "gpt-test", Surface: Name,
		Surfaces: []engine.SurfaceFactory{Factory(Options{Profiles: profiles})},
	})
	return env.Engine, env.Root
}

// Every tool and error of seed 003, in one scripted session: a blocking
// and a non-blocking wait, the timeout text, cancel of a running and of a
// finished session, an unknown type and id, a configured profile's model
// and prompt, and a child that runs a session of its own.
func TestSessionTools(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	steps := []func(req model.Request) model.Response{
		func(model.Request) model.Response {
			return call("c1", ToolCreate, `{"session_type":"tester","prompt":"slow: hold on"}`)
		},
		func(model.Request) model.Response {
			return call("c2", ToolCreate, `{"session_type":"bogus","prompt":"x"}`)
		},
		func(r model.Request) model.Response {
			return call("w1", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":0}`, sessionID(t, outputOf(r, "c1"))))
		},
		func(r model.Request) model.Response {
			return call("w2", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":30}`, sessionID(t, outputOf(r, "c1"))))
		},
		func(r model.Request) model.Response {
			return call("x1", ToolCancel, fmt.Sprintf(`{"session_id":%q}`, sessionID(t, outputOf(r, "c1"))))
		},
		func(r model.Request) model.Response {
			return call("w3", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":60000}`, sessionID(t, outputOf(r, "c1"))))
		},
		func(r model.Request) model.Response {
			return call("x2", ToolCancel, fmt.Sprintf(`{"session_id":%q}`, sessionID(t, outputOf(r, "c1"))))
		},
		func(model.Request) model.Response {
			return call("c3", ToolCreate, `{"session_type":"poet","prompt":"quick: 2+2"}`)
		},
		func(r model.Request) model.Response {
			return call("w4", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":60000}`, sessionID(t, outputOf(r, "c3"))))
		},
		func(r model.Request) model.Response {
			return call("w5", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":-1}`, sessionID(t, outputOf(r, "c3"))))
		},
		func(model.Request) model.Response { return call("x3", ToolCancel, `{"session_id":"nope"}`) },
		func(model.Request) model.Response {
			return call("c4", ToolCreate, `{"session_type":"default","prompt":"nest: go deeper"}`)
		},
		func(r model.Request) model.Response {
			return call("w6", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":60000}`, sessionID(t, outputOf(r, "c4"))))
		},
		func(r model.Request) model.Response {
			return call("x4", ToolCancel, fmt.Sprintf(`{"session_id":%q}`, sessionID(t, outputOf(r, "c3"))))
		},
	}
	c := &surfacetest.Scripted{Who: whoOf}
	c.Reply = func(who string, req model.Request) model.Response {
		switch who {
		case "root":
			n := len(c.Requests("root")) - 1
			if n < len(steps) {
				return steps[n](req)
			}
			return say("done")
		case "slow:":
			<-release
			return say("too late")
		case "quick:":
			return say("4")
		case "nest:":
			if len(req.Items) == 1 {
				return call("n1", ToolCreate, `{"session_type":"default","prompt":"leaf: bottom"}`)
			}
			if out := outputOf(req, "n1"); out != "" && outputOf(req, "n2") == "" {
				return call("n2", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":60000}`, sessionID(t, out)))
			}
			return say("nested: " + outputOf(req, "n2"))
		case "leaf:":
			return say("leaf done")
		}
		return say("?")
	}
	e, root := start(t, c, map[string]Profile{"poet": {Instructions: "You write verse.", Model: "gpt-poet"}})
	t.Cleanup(free)
	events, cancel := e.Subscribe()
	defer cancel()
	if err := e.SubmitText(root, "run the sessions"); err != nil {
		t.Fatal(err)
	}
	if st, timedOut, err := e.WaitFinal(context.Background(), root, 60*time.Second); err != nil || timedOut || st.Kind != protocol.StatusCompleted {
		t.Fatalf("root: %v %v %v", st, timedOut, err)
	}
	free()
	reqs := c.Requests("root")
	final := reqs[len(reqs)-1]
	slow := sessionID(t, outputOf(final, "c1"))
	quick := sessionID(t, outputOf(final, "c3"))
	for id, want := range map[string]string{
		// session_type is an enum in the schema (seed 003): the schema check names the valid types.
		"c2": `invalid arguments for create_session: field "session_type": expected one of "default", "linter_fixer", "mathematician", "poet", "tester", got "bogus"`,
		"w1": "session " + slow + " has not completed yet",
		"w2": "session " + slow + " did not complete within 30ms",
		"x1": `{"cancelled":true}`,
		"w3": "session " + slow + " was cancelled",
		"x2": `{"cancelled":false}`,
		"w4": `{"result":"4"}`,
		"w5": `{"result":"4"}`,
		"x3": "cancel_session: unknown session_id nope",
		"w6": `{"result":"nested: {\"result\":\"leaf done\"}"}`,
		"x4": `{"cancelled":false}`,
	} {
		if out := outputOf(final, id); !strings.Contains(out, want) {
			t.Errorf("%s: got %q, want %q", id, out, want)
		}
	}
	// The profile's model and developer prompt reached the child.
	q := c.Requests("quick:")
	if len(q) == 0 || q[0].Model != "gpt-poet" || !strings.Contains(q[0].Instructions, "You write verse.") {
		t.Fatalf("poet child request: model %q", q[0].Model)
	}
	// The child sees the parent's tools (inherited), including this surface.
	var names []string
	for _, sp := range q[0].Tools {
		names = append(names, sp.Name)
	}
	if !strings.Contains(strings.Join(names, ","), ToolCreate) || !strings.Contains(strings.Join(names, ","), "exec_command") {
		t.Fatalf("child tools: %v", names)
	}
	// Seed 003's background events on the parent.
	var sawSpawn, sawCancel, sawComplete bool
	deadline := time.After(10 * time.Second)
	for !(sawSpawn && sawCancel && sawComplete) {
		select {
		case ev := <-events:
			if ev.Type == protocol.EventBackground && ev.ThreadID == root {
				sawSpawn = sawSpawn || ev.Background.Message == fmt.Sprintf("spawned child session %s with model gpt-poet", quick)
				sawCancel = sawCancel || ev.Background.Message == fmt.Sprintf("child session %s cancelled", slow)
				sawComplete = sawComplete || ev.Background.Message == fmt.Sprintf("child session %s completed", quick)
			}
		case <-deadline:
			t.Fatalf("background events: spawn %v cancel %v complete %v", sawSpawn, sawCancel, sawComplete)
		}
	}
	// Seed 003: session ids are UUID v4 strings.
	for _, id := range []string{slow, quick} {
		if u, err := uuid.Parse(id); err != nil || u.Version() != 4 || u.String() != id {
			t.Errorf("session id %q is not a UUID v4", id)
		}
	}
	_ = e
}

// A child session's approvals never reach the user, even in an
// interactive session (not headless, approval_policy on-request): the
// request is decided by policy at once, as in grove exec, and the model is
// told why.
func TestChildIsNonInteractive(t *testing.T) {
	c := &surfacetest.Scripted{Who: whoOf}
	c.Reply = func(who string, req model.Request) model.Response {
		switch who {
		case "root":
			if len(req.Items) == 1 {
				return call("c1", ToolCreate, `{"session_type":"default","prompt":"esc: run it"}`)
			}
			if out := outputOf(req, "c1"); out != "" && outputOf(req, "w1") == "" {
				return call("w1", ToolWait, fmt.Sprintf(`{"session_id":%q,"timeout_ms":60000}`, sessionID(t, out)))
			}
			return say("done")
		case "esc:":
			if len(req.Items) == 1 {
				return call("e1", "exec_command", `{"cmd":"echo hi","sandbox_permissions":"require_escalated","justification":"test"}`)
			}
			return say("exec said: " + outputOf(req, "e1"))
		}
		return say("?")
	}
	env := surfacetest.Start(t, surfacetest.Config{
		Client: c, Model: "gpt-test", Surface: Name, Interactive: true,
		Surfaces: []engine.SurfaceFactory{Factory(Options{})},
		Options: func(o *engine.Options) {
			o.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
		},
	})
	e, root := env.Engine, env.Root
	if err := e.SubmitText(root, "go"); err != nil {
		t.Fatal(err)
	}
	st, timedOut, err := e.WaitFinal(context.Background(), root, 60*time.Second)
	if err != nil || timedOut {
		t.Fatalf("root never finished (an approval waiting for the user?): %v %v; pending %v", timedOut, err, e.PendingApprovals())
	}
	reqs := c.Requests("root")
	out := outputOf(reqs[len(reqs)-1], "w1")
	if !strings.Contains(out, "runs non-interactively") || st.Kind != protocol.StatusCompleted {
		t.Fatalf("wait_session output %q (root %v)", out, st)
	}
}
