package surfacetest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/protocol"
)

func taskCfg(files map[string]string, turns surfacetest.Turns) surfacetest.Config {
	return surfacetest.Config{Surfaces: []engine.SurfaceFactory{task.Factory(task.Options{})}, Surface: "task", Files: files, Turns: turns}
}

// complete is a Task agent's complete_task call.
var complete = call("done", "complete_task", `{"result":"r"}`)

// reviewer is seed 004 §3.1.4's YAML example in shape: camelCase keys
// throughout.
const reviewer = `agentType: code-reviewer
displayName: "Code Reviewer Agent"
whenToUse: "Use for reviewing code changes and suggesting improvements"
tools: [read_file, grep_files, list_dir]
disallowedTools: [list_dir]
source: project
modelConfig:
  model: inherit
  temperature: 0.1
  topP: 0.5
forkContext: false
runConfig:
  maxTimeSeconds: 180
  maxTurns: 5
  gracePeriodSeconds: 30
inputConfig:
  inputs:
    file_path: { type: string, required: true, description: "File to review" }
    depth: { type: integer, description: "How deep" }
outputConfig:
  outputName: report
  description: "The review"
  schema:
    type: object
    properties:
      summary: { type: string }
    required: [summary]
promptConfig:
  systemPrompt: |
    You are a ${agent_type} in ${cwd}.
  query: |
    Review the file: ${file_path}
`

// Seed 004 (Task surface): the rows the outside audit alone had counted.
func TestSeed004(t *testing.T) {
	runCases(t, []seedCase{
		{clause: "004-04 camelCase definition drives the run", cfg: taskCfg(map[string]string{".grove/agents/code-reviewer.yaml": reviewer}, surfacetest.Turns{
			"root": {call("a", "Task", `{"subagent_type":"code-reviewer","description":"review","prompt":"AS:k1 look","inputs":{"file_path":"main.go"}}`), say("ok")},
			"k1":   {call("done", "complete_task", `{"report":{"summary":"fine"}}`)},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			req := env.Request("k1", 0)
			if sys := env.System("k1", 0); !strings.Contains(sys, "You are a code-reviewer in "+env.Cwd+".") {
				t.Errorf("systemPrompt with ${agent_type}, ${cwd}:\n%s", sys)
			}
			if req.Body["temperature"] != 0.1 || req.Body["top_p"] != 0.5 {
				t.Errorf("modelConfig on the wire: temperature %v top_p %v", req.Body["temperature"], req.Body["top_p"])
			}
			if !strings.Contains(string(req.Raw), `Review the file: main.go`) {
				t.Error("the query with its input is not the first message")
			}
			exact(t, "tools", strings.Join(env.Tools("k1", 0), " "), "complete_task grep_files read_file")
			if out := env.JSON("root", "a"); out["status"] != "goal" || out["result"] != "{\n  \"summary\": \"fine\"\n}" {
				t.Errorf("Task result %v", out)
			}
		}},
		{clause: "004-07+08+19 ToolAccess, AgentSource tiers", cfg: taskCfg(map[string]string{
			".grove/agents/all.yaml":  "agentType: all\nwhenToUse: All.\ndisallowedTools: [grep_files]\n",
			".grove/agents/list.yaml": "agentType: list\nwhenToUse: List.\ntools: [read_file, exec_command, nonexistent]\n",
		}, surfacetest.Turns{
			"root": {
				call("a", "Task", `{"subagent_type":"all","description":"d","prompt":"AS:kall go"}`),
				call("b", "Task", `{"subagent_type":"list","description":"d","prompt":"AS:klist go"}`),
				call("c", "Task", `{"subagent_type":"worker","description":"d","prompt":"AS:kwork go"}`),
				say("ok"),
			},
			"kall": {complete}, "klist": {complete}, "kwork": {complete},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			parent := env.Tools("root", 0)
			// All: the parent's tools, less the always-blocked (Task,
			// TaskOutput, update_plan), the disallowed, and the
			// non-built-in tier (exec_command, apply_patch).
			var want []string
			for _, n := range parent {
				if !slices.Contains([]string{"Task", "TaskOutput", "update_plan", "grep_files", "exec_command", "apply_patch"}, n) {
					want = append(want, n)
				}
			}
			want = append(want, "complete_task")
			slices.Sort(want)
			exact(t, "All (project)", strings.Join(env.Tools("kall", 0), " "), strings.Join(want, " "))
			// List ∩ parent: nonexistent is no tool; exec_command is
			// non-built-in tier.
			exact(t, "List (project)", strings.Join(env.Tools("klist", 0), " "), "complete_task read_file")
			// A built-in (grove's embedded worker) keeps exec_command.
			if !slices.Contains(env.Tools("kwork", 0), "exec_command") {
				t.Errorf("built-in worker lost exec_command: %v", env.Tools("kwork", 0))
			}
		}},
		{clause: "004-11 promptConfig: query, initialMessages; no query: the Task prompt", cfg: taskCfg(map[string]string{
			".grove/agents/fewshot.yaml": "agentType: fewshot\nwhenToUse: Few-shot.\npromptConfig:\n  systemPrompt: Be brief.\n  query: \"Q: ${prompt}\"\n  initialMessages:\n    - role: user\n      content: \"Q: 1+1\"\n    - role: assistant\n      content: \"A: 2\"\n",
			".grove/agents/plain.yaml":   "agentType: plain\nwhenToUse: Plain.\n",
		}, surfacetest.Turns{
			"root": {
				call("a", "Task", `{"subagent_type":"fewshot","description":"d","prompt":"AS:k1 2+2"}`),
				call("b", "Task", `{"subagent_type":"plain","description":"d","prompt":"AS:k2 go"}`),
				say("ok"),
			},
			"k1": {complete}, "k2": {complete},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			// The task is a plain user message: no grove header (§3.4.2's
			// Message::user(prompt)).
			got := strings.Join(conversation(env.Request("k1", 0)), " | ")
			exact(t, "few-shot conversation", got, "user: Q: 1+1 | assistant: A: 2 | user: Q: AS:k1 2+2")
			// "Get Started!" is PromptConfig's comment only.
			exact(t, "no query", strings.Join(conversation(env.Request("k2", 0)), " | "), "user: AS:k2 go")
		}},
		{clause: "004-52 a Task agent's approval goes to the parent's session and the user", cfg: func() surfacetest.Config {
			c := taskCfg(nil, surfacetest.Turns{
				"root": {call("a", "Task", `{"subagent_type":"worker","description":"d","prompt":"AS:k1 go"}`), say("ok")},
				"k1":   {call("x", "exec_command", `{"cmd":"echo hi","sandbox_permissions":"require_escalated","justification":"needs it"}`), complete},
			})
			c.Interactive = true
			return c
		}(), run: func(t *testing.T, env *surfacetest.Env) {
			if err := env.Engine.SubmitText(env.Root, "AS:root go"); err != nil {
				t.Fatal(err)
			}
			ev := env.WaitEvent(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })
			// grove's tree is one session: the child's request waits in
			// that session's queue, for its user.
			if ev.Approval.ThreadID == env.Root || len(env.Engine.PendingApprovals()) != 1 {
				t.Errorf("approval %+v; pending %v", ev.Approval, env.Engine.PendingApprovals())
			}
			if err := env.Engine.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ev.Approval.ID, Decision: protocol.DecisionApproved}); err != nil {
				t.Fatal(err)
			}
			env.WaitEvent(func(ev protocol.Event) bool {
				return ev.Type == protocol.EventTurnCompleted && ev.ThreadID == env.Root
			})
		}, check: func(t *testing.T, env *surfacetest.Env) {
			if out := env.Output("k1", "x"); !strings.Contains(out, "hi") {
				t.Errorf("the approved command's output: %s", out)
			}
		}},
		{clause: "004-13 input types and required", cfg: taskCfg(map[string]string{".grove/agents/code-reviewer.yaml": reviewer}, surfacetest.Turns{
			"root": {
				call("miss", "Task", `{"subagent_type":"code-reviewer","description":"d","prompt":"AS:k1 x"}`),
				call("type", "Task", `{"subagent_type":"code-reviewer","description":"d","prompt":"AS:k1 x","inputs":{"file_path":"a","depth":"deep"}}`),
				say("ok"),
			},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			exact(t, "missing", env.Output("root", "miss"), "Task: missing required input file_path (string: File to review)")
			if out := env.Output("root", "type"); !strings.Contains(out, "depth") || strings.HasPrefix(out, "{") {
				t.Errorf("a string for an integer input: %s", out)
			}
			threads(t, env, 1)
		}},
		{clause: "004-21 shadowing; list_types sorted, deduplicated", cfg: taskCfg(map[string]string{
			".grove/agents/Explore.md": "---\nagentType: Explore\nwhenToUse: My explore.\n---\nMY EXPLORE PROMPT\n",
			".grove/agents/bare.yaml":  "agentType: bare\nwhenToUse: Bare.\n",
		}, surfacetest.Turns{
			"root": {
				call("a", "Task", `{"subagent_type":"Explore","description":"d","prompt":"AS:k1 go"}`),
				call("u", "Task", `{"subagent_type":"nope","description":"d","prompt":"AS:k2 go"}`),
				say("ok"),
			},
			"k1": {complete},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			if !strings.Contains(env.System("k1", 0), "MY EXPLORE PROMPT") {
				t.Error("the project's Explore does not shadow the built-in")
			}
			exact(t, "unknown type", env.Output("root", "u"), `Unknown subagent type 'nope'. Available: ["Explore", "Plan", "bare", "explorer", "orchestrator", "worker"]`)
		}},
		{clause: "004-30 default system prompt", cfg: taskCfg(map[string]string{".grove/agents/bare.yaml": "agentType: bare\nwhenToUse: Bare.\n"}, surfacetest.Turns{
			"root": {call("a", "Task", `{"subagent_type":"bare","description":"d","prompt":"AS:k1 go"}`), say("ok")},
			"k1":   {complete},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			// §3.4.2: the system prompt is the definition's, else exactly
			// this; nothing of grove's around it.
			exact(t, "default system prompt", env.System("k1", 0), "You are a helpful assistant.")
		}},
		{clause: "004-60 SubAgentSource Explore / Plan / Custom", cfg: taskCfg(map[string]string{".grove/agents/bare.yaml": "agentType: bare\nwhenToUse: Bare.\n"}, surfacetest.Turns{
			"root": {
				call("a", "Task", `{"subagent_type":"Explore","description":"d","prompt":"AS:k1 go"}`),
				call("b", "Task", `{"subagent_type":"Plan","description":"d","prompt":"AS:k2 go"}`),
				call("c", "Task", `{"subagent_type":"bare","description":"d","prompt":"AS:k3 go"}`),
				say("ok"),
			},
			"k1": {complete}, "k2": {complete}, "k3": {complete},
		}), check: func(t *testing.T, env *surfacetest.Env) {
			var got []string
			for _, ev := range env.Events.Find(protocol.EventThreadStarted) {
				if ev.Thread.Source == protocol.SourceSpawned {
					got = append(got, ev.Thread.AgentType)
				}
			}
			exact(t, "agent types", strings.Join(got, " "), "Explore Plan bare")
		}},
	})
}

// conversation is a chat request's user and assistant messages, as
// "role: text" (the system message left out).
func conversation(r surfacetest.Request) []string {
	var out []string
	msgs := r.Messages()
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if role, _ := msg["role"].(string); role == "user" || role == "assistant" {
			text, _ := msg["content"].(string)
			out = append(out, role+": "+text)
		}
	}
	return out
}
