package task

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var roleRe = regexp.MustCompile(`# Your role: (\S+)`)

// current is the engine of the running test (the tests of this package
// do not run in parallel; a test with two engines runs them one after
// the other).
var current atomic.Pointer[engine.Engine]

// roleOf names the agent a request is from: "# Your role: X" in grove's
// prompt; the root by grove's prompt; a Task agent, whose system prompt
// is its definition's alone (seed 004), by its thread's agent type (the
// request's cache key is the thread id).
func roleOf(req model.Request) string {
	if m := roleRe.FindStringSubmatch(req.Instructions); m != nil {
		return m[1]
	}
	if strings.HasPrefix(req.Instructions, "You are a coding agent running in grove") {
		return "root"
	}
	if e := current.Load(); e != nil {
		if ti, ok := e.Info(protocol.ThreadID(req.CacheKey)); ok && ti.AgentType != "" {
			return ti.AgentType
		}
	}
	return "agent"
}

// newScripted is a model whose replies a test computes from each
// request's role (from the instructions) and conversation; every reply
// reports the same usage, so token counts are known.
func newScripted(reply func(role string, req model.Request) model.Response) *surfacetest.Scripted {
	return &surfacetest.Scripted{Who: roleOf, Reply: reply, Usage: protocol.TokenUsage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}}
}

// call is a tool call reply.
var call = surfacetest.ToolCall

// outputs maps call ids to their outputs in a request's conversation.
func outputs(req model.Request) map[string]string {
	out := map[string]string{}
	for _, it := range req.Items {
		if it.Type == protocol.ItemFunctionCallOutput {
			out[it.CallID] = it.Output
		}
	}
	return out
}

// lastUser is the last user (or agent) message of a request.
func lastUser(req model.Request) string {
	for i := len(req.Items) - 1; i >= 0; i-- {
		it := req.Items[i]
		if it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent) {
			return it.Content
		}
	}
	return ""
}

func toolNames(req model.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// project makes a project directory (a git root) with agent files.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, ".grove", "agents", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type setup struct {
	home, cwd string
	model     string
	surface   string
	trust     bool
	env       map[string]string
	aliases   map[string]string
	// interactive: approvals reach the user (PendingApprovals) instead of
	// the headless policy.
	interactive bool
	// disabled, defaults and agentsDir are seed 004's SubagentConfig.
	disabled bool
	// approveWorkdirs approves working-directory changes (baseDir).
	approveWorkdirs bool
	defaults        Defaults
	agentsDir       string
}

// start runs an engine with both surfaces and a root thread.
func start(t *testing.T, c model.Client, s setup) (*engine.Engine, protocol.ThreadID) {
	t.Helper()
	if s.model == "" {
		s.model = "gpt-test"
	}
	if s.surface == "" {
		s.surface = surface.Task
	}
	env := surfacetest.Start(t, surfacetest.Config{
		Client: c, Home: s.home, Cwd: s.cwd, Model: s.model, Surface: s.surface,
		Interactive: s.interactive, Aliases: s.aliases,
		Options: func(o *engine.Options) {
			o.ApproveWorkdirs = s.approveWorkdirs
			if s.agentsDir != "" {
				o.Templates = templates.Load(templates.Dirs{Cwd: o.Cwd, GroveHome: o.Home, AgentsDir: s.agentsDir}, templates.Options{ModelAliases: s.aliases})
			}
		},
		Surfaces: []engine.SurfaceFactory{Factory(Options{
			ModelAliases: s.aliases, TrustCustomAgents: s.trust, Getenv: func(k string) string { return s.env[k] },
			Disabled: s.disabled, Defaults: s.defaults,
		})},
	})
	current.Store(env.Engine)
	return env.Engine, env.Root
}

// runRoot submits a prompt to the root and waits for its turn to end.
func runRoot(t *testing.T, e *engine.Engine, root protocol.ThreadID, prompt string) protocol.AgentStatus {
	t.Helper()
	if err := e.SubmitText(root, prompt); err != nil {
		t.Fatal(err)
	}
	st, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second)
	if err != nil || timedOut {
		t.Fatalf("root did not finish: timedOut=%v err=%v", timedOut, err)
	}
	return st
}

// toolOutput decodes the JSON a tool returned to the root.
func toolOutput(t *testing.T, c *surfacetest.Scripted, callID string) map[string]any {
	t.Helper()
	for _, req := range c.Requests("root") {
		if out, ok := outputs(req)[callID]; ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("output of %s is not JSON: %v\n%s", callID, err, out)
			}
			return m
		}
	}
	t.Fatalf("no output for call %s", callID)
	return nil
}

func rawOutput(c *surfacetest.Scripted, callID string) string {
	for _, req := range c.Requests("root") {
		if out, ok := outputs(req)[callID]; ok {
			return out
		}
	}
	return ""
}
