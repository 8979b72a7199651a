package surfacetest_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

var (
	say      = surfacetest.Say
	call     = surfacetest.Call
	callWith = surfacetest.CallWith
)

// idArgs builds a call's arguments around the agent id an earlier call
// (from) returned under field.
func idArgs(from, field, format string) func(surfacetest.Request) string {
	return func(r surfacetest.Request) string {
		b, _ := json.Marshal(r.Field(from, field))
		return regexp.MustCompile(`\$ID`).ReplaceAllLiteralString(format, string(b))
	}
}

// probeTemplate is a project role with a persona (seed 002's format).
const probeTemplate = `---
description: Probe things.
agent_names:
  - name: fast
    description: Quick probe.
---
Probe the code.

<!-- agent_name: fast -->
Probe quickly.
`

// childOf is the thread_started event of the root's child.
func spawned(t *testing.T, env *surfacetest.Env) protocol.ThreadInfo {
	t.Helper()
	for _, ev := range env.Events.Find(protocol.EventThreadStarted) {
		if ev.Thread != nil && ev.Thread.Source == protocol.SourceSpawned {
			return *ev.Thread
		}
	}
	t.Fatal("no spawned thread_started event")
	return protocol.ThreadInfo{}
}

func notes(env *surfacetest.Env, id protocol.ThreadID) []string {
	var out []string
	for _, ev := range env.Events.Find(protocol.EventNoteUpdated) {
		if ev.ThreadID == id && ev.Note != nil {
			out = append(out, *ev.Note)
		}
	}
	return out
}

func threads(t *testing.T, env *surfacetest.Env, want int) {
	t.Helper()
	if n := len(env.Engine.Threads()); n != want {
		t.Errorf("%d threads, want %d", n, want)
	}
}

// Seed 000 (collab surface, Russian original): the clauses docs/seeds.md
// had counted exact from an outside audit only.
func TestSeed000(t *testing.T) {
	runCases(t, []seedCase{
		{clause: "000-03 ThreadNoteUpdated on spawn and set_thread_note", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {
				call("s", "spawn_agent", `{"message":"AS:w1 work","thread_note":"  first   note "}`),
				callWith("n", "set_thread_note", idArgs("s", "agent_id", `{"id":$ID,"note":" second "}`)),
				callWith("c", "set_thread_note", idArgs("s", "agent_id", `{"id":$ID,"note":"   "}`)),
				say("ok"),
			},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			child := spawned(t, env)
			got, _ := json.Marshal(notes(env, child.ID))
			exact(t, "note events", string(got), `["first note","second",""]`)
			n := env.JSON("root", "n")
			if n["thread_note"] != "second" || n["submission_id"] == "" {
				t.Errorf("set_thread_note result %v", n)
			}
			if c := env.JSON("root", "c"); c["thread_note"] != nil {
				t.Errorf("a blank note clears (null): %v", c)
			}
		}},
		{clause: "000-04 thread_note in the thread's bootstrap event", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {
				call("s", "spawn_agent", `{"message":"AS:w1 work","thread_note":"kept note"}`),
				callWith("w", "wait", idArgs("s", "agent_id", `{"ids":[$ID]}`)),
				callWith("c", "close_agent", idArgs("s", "agent_id", `{"id":$ID}`)),
				callWith("r", "resume_agent", idArgs("s", "agent_id", `{"id":$ID}`)),
				say("ok"),
			},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			// A thread's bootstrap record is its ThreadInfo (thread_started,
			// thread/list, a resumed session's tree); resume_agent brings
			// the note back with it.
			id := spawned(t, env).ID
			info, ok := env.Engine.Info(id)
			if !ok {
				t.Fatalf("no thread %s; resume said %s", id, env.Output("root", "r"))
			}
			exact(t, "resumed agent's note", info.Note, "kept note")
		}},
		{clause: "000-12 message or items, not both", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x","items":[{"type":"text","text":"y"}]}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			exact(t, "spawn_agent", env.Output("root", "s"), "spawn_agent: provide either message or items, not both")
			threads(t, env, 1)
		}},
		{clause: "000-33 send_input takes message or items", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {
				call("s", "spawn_agent", `{"message":"AS:w1 x"}`),
				callWith("w", "wait", idArgs("s", "agent_id", `{"ids":[$ID]}`)),
				callWith("b", "send_input", idArgs("s", "agent_id", `{"id":$ID,"message":"m","items":[{"type":"text","text":"y"}]}`)),
				callWith("i", "send_input", idArgs("s", "agent_id", `{"id":$ID,"items":[{"type":"text","text":"sent as items"}]}`)),
				callWith("w2", "wait", idArgs("s", "agent_id", `{"ids":[$ID]}`)),
				say("ok"),
			},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			exact(t, "send_input with both", env.Output("root", "b"), "send_input: provide either message or items, not both")
			if env.JSON("root", "i")["submission_id"] == nil {
				t.Errorf("send_input of items: %s", env.Output("root", "i"))
			}
			reqs := env.Requests("w1")
			body, _ := json.Marshal(reqs[len(reqs)-1].Body["messages"])
			if len(reqs) < 2 || !strings.Contains(string(body), "sent as items") {
				t.Errorf("the child's requests (%d) never carried the items: %s", len(reqs), body)
			}
		}},
		{clause: "000-19 sandbox inherited from the parent", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x"}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			root, _ := env.Engine.Info(env.Root)
			got, _ := json.Marshal(spawned(t, env).Sandbox)
			want, _ := json.Marshal(root.Sandbox)
			exact(t, "child sandbox", string(got), string(want))
		}},
		{clause: "000-21 unknown model refused before spawn, listing models", cfg: surfacetest.Config{Models: []string{"test-model", "other-model"}, Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x","model":"gpt-unknown"}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			exact(t, "spawn_agent", env.Output("root", "s"), `unknown model "gpt-unknown"; available models: other-model, test-model`)
			threads(t, env, 1)
		}},
		{clause: "000-30 default note", cfg: surfacetest.Config{Files: map[string]string{".codex/.agents/probe.md": probeTemplate}, Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x","agent_type":"probe","agent_name":"fast"}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			got, _ := json.Marshal(notes(env, spawned(t, env).ID))
			exact(t, "default note", string(got), `["agent_type=probe; agent_name=fast; agent_description=Probe things."]`)
		}},
		{clause: "000-52 status_duration_sec snapshot", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x"}`), callWith("w", "wait", idArgs("s", "agent_id", `{"ids":[$ID]}`)), call("l", "list_active_agents", `{}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			var out struct {
				Agents []map[string]any `json:"agents"`
			}
			if err := json.Unmarshal([]byte(env.Output("root", "l")), &out); err != nil || len(out.Agents) != 1 {
				t.Fatalf("list_active_agents: %v %s", err, env.Output("root", "l"))
			}
			// The seed names the field and its source, not its precision:
			// grove gives seconds to a tenth.
			if d, ok := out.Agents[0]["status_duration_sec"].(float64); !ok || d < 0 {
				t.Errorf("status_duration_sec %v: want seconds", out.Agents[0]["status_duration_sec"])
			}
		}},
		{clause: "000-54+60 observer keeps watching; completed message", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {
				call("s", "spawn_agent", `{"message":"AS:w1 x"}`),
				callWith("w", "wait", idArgs("s", "agent_id", `{"ids":[$ID]}`)),
				callWith("i", "send_input", idArgs("s", "agent_id", `{"id":$ID,"message":"again"}`)),
				say("ok"),
			},
			"w1": {say("first answer"), say("second answer")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			id := spawned(t, env).ID
			// The root may end before the second answer: wait for it.
			env.WaitEvent(func(ev protocol.Event) bool {
				return ev.Type == protocol.EventStatusChanged && ev.ThreadID == id && ev.Status.Message == "second answer"
			})
			env.WaitEvent(func(ev protocol.Event) bool {
				return ev.Type == protocol.EventBackground && ev.Background.IsFinal && strings.HasSuffix(ev.Background.Message, ": second answer")
			})
			re := regexp.MustCompile(`^agent default \(` + regexp.QuoteMeta(string(id)) + `\) \[s\] completed in \S+: (.*)$`)
			var finals []string
			for _, ev := range env.Events.Find(protocol.EventBackground) {
				if b := ev.Background; b != nil && b.IsFinal && b.ChildID == id {
					m := re.FindStringSubmatch(b.Message)
					if m == nil {
						t.Errorf("final message %q is not the seed's format", b.Message)
						continue
					}
					finals = append(finals, m[1])
				}
			}
			got, _ := json.Marshal(finals)
			exact(t, "final background events", string(got), `["first answer","second answer"]`)
		}},
	})
}
