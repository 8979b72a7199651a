package surfacetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/surface/sessions"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

func sessionsCfg(turns surfacetest.Turns) surfacetest.Config {
	return surfacetest.Config{Surfaces: []engine.SurfaceFactory{sessions.Factory(sessions.Options{})}, Surface: sessions.Name, Turns: turns}
}

var createThenWait = []surfacetest.Turn{
	call("c", "create_session", `{"session_type":"default","prompt":"AS:kid do it"}`),
	callWith("w", "wait_session", idArgs("c", "session_id", `{"session_id":$ID,"timeout_ms":60000}`)),
	say("ok"),
}

// Seed 003 (sessions surface).
func TestSeed003(t *testing.T) {
	runCases(t, []seedCase{
		{clause: "003-11+15+26 inherited cwd, sandbox, model; default profile; source", cfg: sessionsCfg(surfacetest.Turns{
			"root": createThenWait, "kid": {say("kid result")},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			root, _ := env.Engine.Info(env.Root)
			kid := spawned(t, env)
			exact(t, "cwd", kid.Cwd, root.Cwd)
			got, _ := json.Marshal(kid.Sandbox)
			want, _ := json.Marshal(root.Sandbox)
			exact(t, "sandbox", string(got), string(want))
			exact(t, "source", string(kid.Source), string(protocol.SourceSpawned))
			req := env.Request("kid", 0)
			exact(t, "model on the wire", req.Body["model"].(string), surfacetest.DefaultModel)
			if sys := env.System("kid", 0); !strings.Contains(sys, sessions.Presets["default"].Instructions) {
				t.Errorf("the default profile's prompt is not the child's instructions:\n%s", sys)
			}
			exact(t, "wait_session", env.Output("root", "w"), `{"result":"kid result"}`)
		}},
		{clause: "003-13 no shared history; own rollout", cfg: sessionsCfg(surfacetest.Turns{
			"root": createThenWait, "kid": {say("kid result")},
		}), prompt: "AS:root secret-parent-words", check: func(t *testing.T, env *surfacetest.Env) {
			if raw := string(env.Request("kid", 0).Raw); strings.Contains(raw, "secret-parent-words") {
				t.Error("the child was sent the parent's conversation")
			}
			kid := spawned(t, env)
			rel, err := filepath.Rel(env.Home, kid.RolloutPath)
			if err != nil || !regexp.MustCompile(`^sessions/\d{4}/\d\d/\d\d/rollout-[^/]+-`+string(kid.ID)+`\.jsonl$`).MatchString(filepath.ToSlash(rel)) {
				t.Errorf("child rollout %s", kid.RolloutPath)
			}
			if _, err := os.Stat(kid.RolloutPath); err != nil {
				t.Error(err)
			}
		}},
		{clause: "003-17 create errors only when the child cannot start", cfg: sessionsCfg(surfacetest.Turns{
			"root": {call("bad", "create_session", `{"session_type":"poet","prompt":"AS:kid x"}`), call("c", "create_session", `{"session_type":"tester","prompt":"AS:kid x"}`), say("ok")},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			// session_type is an enum (seed 003): the schema names the types.
			exact(t, "unknown type", env.Output("root", "bad"), `invalid arguments for create_session: field "session_type": expected one of "default", "linter_fixer", "mathematician", "tester", got "poet"`)
			exact(t, "created", stable(env.Output("root", "c")), `{"session_id":"<id>"}`)
		}},
		{clause: "003-20 a failed child's captured error", cfg: sessionsCfg(surfacetest.Turns{
			"root": createThenWait,
			"kid": {func(surfacetest.Request) modeltest.Reply {
				return modeltest.Reply{Status: 400, Body: `{"error":{"message":"model exploded","type":"invalid_request_error"}}`}
			}},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			info, _ := env.Engine.Info(spawned(t, env).ID)
			if info.Status.Kind != protocol.StatusErrored || !strings.Contains(info.Status.Message, "model exploded") {
				t.Fatalf("child status %+v", info.Status)
			}
			exact(t, "wait_session", env.Output("root", "w"), info.Status.Message)
		}},
		{clause: "003-25 children aborted when the parent is interrupted", cfg: sessionsCfg(surfacetest.Turns{
			"root": {call("c", "create_session", `{"session_type":"default","prompt":"AS:kid x"}`), surfacetest.Hold()},
			"kid":  {surfacetest.Hold()},
		}), run: func(t *testing.T, env *surfacetest.Env) {
			if err := env.Engine.SubmitText(env.Root, "AS:root go"); err != nil {
				t.Fatal(err)
			}
			kidRunning := func(ev protocol.Event) bool {
				return ev.Type == protocol.EventTurnStarted && ev.ThreadID != env.Root
			}
			kid := env.WaitEvent(kidRunning).ThreadID
			// The root is held in its second model call.
			env.WaitEvent(func(ev protocol.Event) bool { return ev.Type == protocol.EventToolCallEnd && ev.ThreadID == env.Root })
			if err := env.Engine.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.Root}); err != nil {
				t.Fatal(err)
			}
			env.WaitEvent(func(ev protocol.Event) bool {
				return ev.Type == protocol.EventStatusChanged && ev.ThreadID == kid && !ev.Status.IsActive()
			})
		}, check: func(t *testing.T, env *surfacetest.Env) {
			info, _ := env.Engine.Info(spawned(t, env).ID)
			if info.Status.IsActive() {
				t.Errorf("child still %s after the parent's interrupt", info.Status.Kind)
			}
		}},
	})
}
