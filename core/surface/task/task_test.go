package task

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

// reviewerYAML is a seed-004 definition with camelCase keys, typed inputs
// and a typed output.
const reviewerYAML = `agentType: code-reviewer
displayName: "Code Reviewer"
whenToUse: "Reviews one file and reports issues"
tools:
  - Read
  - glob_files
disallowedTools:
  - shell
modelConfig:
  model: inherit
  temperature: 0.1
runConfig:
  maxTimeSeconds: 120
  maxTurns: 5
  gracePeriodSeconds: 30
inputConfig:
  inputs:
    file_path:
      type: string
      required: true
      description: "Path to the file to review"
    review_focus:
      type: string
      description: "What to focus on"
outputConfig:
  outputName: review_report
  description: "The review"
  schema:
    type: object
    properties:
      summary: { type: string }
      issues:
        type: array
        items: { type: string }
    required: [summary, issues]
promptConfig:
  systemPrompt: |
    You review code in ${cwd}.
  query: |
    Review the file: ${file_path}
    Focus: ${review_focus}
`

func TestSyncTaskWithOutputSchemaRetriesAfterViolation(t *testing.T) {
	cwd := project(t, map[string]string{"reviewer.yaml": reviewerYAML})
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "reviewed"}
			}
			return call("t1", "Task", `{"subagent_type":"code-reviewer","prompt":"be strict","description":"review main","inputs":{"file_path":"main.go","review_focus":"errors"}}`)
		case "code-reviewer":
			outs := outputs(req)
			switch {
			case outs["c2"] != "":
				return model.Response{Text: "unexpected extra step"}
			case outs["c1"] != "":
				return call("c2", "complete_task", `{"review_report":{"summary":"ok","issues":["unchecked error"]}}`)
			}
			return call("c1", "complete_task", `{"review_report":{"summary":"missing issues"}}`)
		}
		return model.Response{Text: "?"}
	}
	e, root := start(t, c, setup{cwd: cwd})
	runRoot(t, e, root, "review main.go")

	out := toolOutput(t, c, "t1")
	if out["status"] != "goal" {
		t.Fatalf("status = %v, want goal: %v", out["status"], out)
	}
	// Seed 004 §3.4.2: the named output, pretty-printed, byte for byte.
	if want := "{\n  \"issues\": [\n    \"unchecked error\"\n  ],\n  \"summary\": \"ok\"\n}"; out["result"] != want {
		t.Errorf("result = %q, want the pretty review_report %q", out["result"], want)
	}
	for _, k := range []string{"turns_used", "duration_seconds", "agent_id", "total_tool_use_count", "total_tokens"} {
		if _, ok := out[k]; !ok {
			t.Errorf("result lacks %s: %v", k, out)
		}
	}
	if out["turns_used"] != float64(2) || out["total_tool_use_count"] != float64(2) || out["total_tokens"] != float64(30) {
		t.Errorf("metrics = turns %v, tools %v, tokens %v; want 2, 2, 30", out["turns_used"], out["total_tool_use_count"], out["total_tokens"])
	}
	reqs := c.Requests("code-reviewer")
	if len(reqs) != 2 {
		t.Fatalf("reviewer made %d requests, want 2", len(reqs))
	}
	// The violation went back to the model, naming the missing field.
	if v := outputs(reqs[1])["c1"]; !strings.Contains(v, "issues") {
		t.Errorf("schema violation not reported to the model: %q", v)
	}
	first := reqs[0]
	// inputConfig substituted into the query, cwd into the system prompt.
	if msg := lastUser(first); !strings.Contains(msg, "Review the file: main.go") || !strings.Contains(msg, "Focus: errors") || !strings.Contains(msg, "be strict") {
		t.Errorf("first message = %q", msg)
	}
	if !strings.Contains(first.Instructions, "You review code in "+cwd) {
		t.Errorf("system prompt not substituted:\n%s", first.Instructions)
	}
	if strings.Contains(first.Instructions, "Working with sub-agents") {
		t.Errorf("a Task agent was taught to delegate:\n%s", first.Instructions)
	}
	// Tools: Read→read_file, glob_files→list_dir+grep_files, and complete_task; no delegation.
	names := toolNames(first)
	slices.Sort(names)
	if want := []string{"complete_task", "grep_files", "list_dir", "read_file"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	// The tree shows it like any agent, with the description as its note.
	info, ok := e.Info(protocol.ThreadID(out["agent_id"].(string)))
	if !ok || info.AgentType != "code-reviewer" || info.Note != "review main" || info.ParentID != root {
		t.Errorf("agent info = %+v", info)
	}
	// Its final status carries what it handed back with complete_task,
	// not what it said on the way.
	if st := info.Status; st.Kind != protocol.StatusCompleted || !strings.Contains(st.Message, "unchecked error") {
		t.Errorf("final status = %+v, want the complete_task result", st)
	}
}

func TestTaskInputValidation(t *testing.T) {
	cwd := project(t, map[string]string{"reviewer.yaml": reviewerYAML})
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		outs := outputs(req)
		switch {
		case outs["t2"] != "":
			return model.Response{Text: "done"}
		case outs["t1"] != "":
			return call("t2", "Task", `{"subagent_type":"code-reviewer","prompt":"x","description":"d","inputs":{"file_path":3}}`)
		}
		return call("t1", "Task", `{"subagent_type":"code-reviewer","prompt":"x","description":"d"}`)
	}
	e, root := start(t, c, setup{cwd: cwd})
	runRoot(t, e, root, "go")
	if out := rawOutput(c, "t1"); !strings.Contains(out, "missing required input file_path") {
		t.Errorf("missing input: %q", out)
	}
	if out := rawOutput(c, "t2"); !strings.Contains(out, "input file_path: expected string") {
		t.Errorf("wrong input type: %q", out)
	}
}

func TestBackgroundTaskAndTaskOutput(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			outs := outputs(req)
			switch {
			case outs["o2"] != "":
				return model.Response{Text: "all done"}
			case outs["o1"] != "":
				once.Do(func() { close(release) })
				return call("o2", "TaskOutput", fmt.Sprintf(`{"agent_id":%q}`, agentID(outs["t1"])))
			case outs["t1"] != "":
				return call("o1", "TaskOutput", fmt.Sprintf(`{"agent_id":%q,"block":false}`, agentID(outs["t1"])))
			}
			return call("t1", "Task", `{"subagent_type":"Explore","prompt":"find main","description":"find main","run_in_background":true}`)
		case "Explore":
			<-release
			if _, ok := outputs(req)["x1"]; ok {
				return model.Response{Text: "stray"}
			}
			return call("x1", "complete_task", `{"result":"main is in cmd/"}`)
		}
		return model.Response{}
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "explore")

	launched := toolOutput(t, c, "t1")
	if id, _ := launched["agent_id"].(string); launched["status"] != "async_launched" || launched["description"] != "find main" || !agentIDFormat.MatchString(id) {
		t.Errorf("launch = %v", launched)
	}
	if got := toolOutput(t, c, "o1"); got["status"] != "Running" || got["message"] != "Task still running or timed out waiting" {
		t.Errorf("non-blocking TaskOutput = %v", got)
	}
	got := toolOutput(t, c, "o2")
	if got["status"] != "goal" || got["result"] != "{\n  \"result\": \"main is in cmd/\"\n}" || got["turns_used"] != float64(1) {
		t.Errorf("blocking TaskOutput = %v", got)
	}
	// Background agents get only the async-safe tools, and Explore only its
	// read-only ones (seed 004 §4: glob_files included, clause 004-20).
	names := toolNames(c.Requests("Explore")[0])
	slices.Sort(names)
	if want := []string{"complete_task", "glob_files", "grep_files", "list_dir", "read_file"}; !slices.Equal(names, want) {
		t.Errorf("background Explore tools = %v, want %v", names, want)
	}
}

// agentIDFormat is seed 004 §3.4.1's id: agent-<uuid v4>.
var agentIDFormat = regexp.MustCompile(`^agent-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func agentID(out string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(out), &m)
	s, _ := m["agent_id"].(string)
	return s
}

func TestTaskOutputNotFound(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if _, ok := outputs(req)["o1"]; ok {
			return model.Response{Text: "ok"}
		}
		return call("o1", "TaskOutput", `{"agent_id":"nope","block":false}`)
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "x")
	if got := toolOutput(t, c, "o1"); got["status"] != "not_found" || got["message"] != "No task found with that agent_id" {
		t.Errorf("TaskOutput of an unknown id = %v", got)
	}
}

const limitedYAML = `agentType: counter
whenToUse: counts files
tools: [list_dir]
runConfig:
  maxTurns: 2
`

// limitScript runs a counter agent that lists the directory until its
// turns run out; in the grace step it calls complete_task, or (ignore)
// only talks.
func limitScript(ignore bool) *surfacetest.Scripted {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"counter","prompt":"count","description":"count files"}`)
		case "counter":
			// Seed 004 §3.6's grace message, verbatim.
			if lastUser(req) == "You have reached the maximum number of turns. You have one final chance to complete the task.\nYou MUST call `complete_task` immediately with your best answer.\nDo not call any other tools." {
				if ignore {
					return model.Response{Text: "partial: 3 files so far"}
				}
				return call("g", "complete_task", `{"result":"3 files"}`)
			}
			n := len(outputs(req))
			return call(fmt.Sprintf("l%d", n), "list_dir", `{"path":"."}`)
		}
		return model.Response{}
	}
	return c
}

func TestMaxTurnsGraceStepReachesGoal(t *testing.T) {
	c := limitScript(false)
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"counter.yaml": limitedYAML})})
	runRoot(t, e, root, "go")
	out := toolOutput(t, c, "t1")
	if out["status"] != "goal" || out["result"] != "{\n  \"result\": \"3 files\"\n}" || out["turns_used"] != float64(3) {
		t.Errorf("result = %v, want goal after the grace step", out)
	}
	reqs := c.Requests("counter")
	grace := reqs[len(reqs)-1]
	if names := toolNames(grace); !slices.Equal(names, []string{"complete_task"}) {
		t.Errorf("grace step tools = %v, want only complete_task", names)
	}
}

// TestZeroGracePeriodAsksNoGraceStep: seed 004 §3.1.2/§3.6 (clause 004-12):
// `gracePeriodSeconds: 0` runs the grace step under a zero timeout, so the
// agent that would answer in it is never asked; the run keeps max_turns.
func TestZeroGracePeriodAsksNoGraceStep(t *testing.T) {
	c := limitScript(false)
	def := limitedYAML + "  gracePeriodSeconds: 0\n"
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"counter.yaml": def})})
	runRoot(t, e, root, "go")
	out := toolOutput(t, c, "t1")
	if out["status"] != "max_turns" || out["result"] != "Subagent reached max turns limit (2)" || out["turns_used"] != float64(2) {
		t.Errorf("result = %v, want max_turns without a grace step", out)
	}
	if n := len(c.Requests("counter")); n != 2 {
		t.Errorf("the counter was asked %d times, want its 2 turns and no grace request", n)
	}
}

func TestMaxTurnsGraceIgnoredKeepsPartialResult(t *testing.T) {
	c := limitScript(true)
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"counter.yaml": limitedYAML})})
	runRoot(t, e, root, "go")
	out := toolOutput(t, c, "t1")
	// Seed 004 §3.6: a failed grace step returns the original status and
	// its result (§3.4.2's text for max_turns).
	if out["status"] != "max_turns" || out["result"] != "Subagent reached max turns limit (2)" {
		t.Errorf("result = %v, want max_turns with the seed's text", out)
	}
	if n := len(c.Requests("counter")); n != 3 {
		t.Errorf("counter made %d requests, want 2 + the grace step", n)
	}
}

func TestUnknownSubagentType(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if _, ok := outputs(req)["t1"]; ok {
			return model.Response{Text: "ok"}
		}
		return call("t1", "Task", `{"subagent_type":"Nope","prompt":"x","description":"x"}`)
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "x")
	out := rawOutput(c, "t1")
	if !strings.HasPrefix(out, `Unknown subagent type 'Nope'. Available: [`) || !strings.Contains(out, `"Explore", "Plan"`) || !strings.Contains(out, `"worker"`) {
		t.Errorf("unknown type error = %q", out)
	}
}

const customYAML = `agentType: fixer
whenToUse: fixes things
`

func TestNonBuiltinAgentRefusedExec(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"fixer","prompt":"run the tests","description":"fix"}`)
		case "fixer":
			if out, ok := outputs(req)["x"]; ok {
				return call("d", "complete_task", fmt.Sprintf(`{"result":%q}`, out))
			}
			return call("x", "exec_command", `{"cmd":"echo hacked"}`)
		}
		return model.Response{}
	}
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"fixer.yaml": customYAML})})
	runRoot(t, e, root, "x")
	out := toolOutput(t, c, "t1")
	if res, _ := out["result"].(string); !strings.Contains(res, `Tool 'exec_command' is not available in this context`) {
		t.Errorf("exec_command was not refused: %v", out)
	}
	names := toolNames(c.Requests("fixer")[0])
	if slices.Contains(names, "exec_command") || slices.Contains(names, "apply_patch") || slices.Contains(names, "Task") || slices.Contains(names, "update_plan") || slices.Contains(names, "spawn_agent") {
		t.Errorf("custom agent tools = %v", names)
	}
	if !slices.Contains(names, "read_file") {
		t.Errorf("custom agent lost its read tools: %v", names)
	}
}

func TestTrustCustomAgentsLiftsTheTier(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"fixer","prompt":"x","description":"fix"}`)
		}
		return call("d", "complete_task", `{"result":"ok"}`)
	}
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"fixer.yaml": customYAML}), trust: true})
	runRoot(t, e, root, "x")
	names := toolNames(c.Requests("fixer")[0])
	if !slices.Contains(names, "exec_command") || !slices.Contains(names, "apply_patch") {
		t.Errorf("trusted custom agent tools = %v", names)
	}
}

// An agent id from another session (here: an earlier process on the same
// GROVE_HOME) does not resolve: Task{resume} answers as seed 004's handler
// does for a missing transcript, the agent never runs in the new session
// (it would read the other session's transcript and run under its
// grants), and TaskOutput does not know it either (issue 21).
func TestResumeRefusesAnAgentOfAnotherSession(t *testing.T) {
	home := t.TempDir()
	cwd := project(t, nil)
	c1 := newScripted(nil)
	c1.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"Explore","prompt":"remember the word kumquat","description":"remember"}`)
		}
		return call("d", "complete_task", `{"result":"remembered"}`)
	}
	e1, root1 := start(t, c1, setup{home: home, cwd: cwd})
	runRoot(t, e1, root1, "go")
	id := agentID(rawOutput(c1, "t1"))
	if id == "" {
		t.Fatalf("no agent id: %s", rawOutput(c1, "t1"))
	}
	if err := e1.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	// A new process: a new engine and a new session on the same home.
	c2 := newScripted(nil)
	c2.Reply = func(role string, req model.Request) model.Response {
		if role != "root" {
			return call("d2", "complete_task", `{"result":"ran"}`)
		}
		outs := outputs(req)
		switch {
		case outs["t3"] != "":
			return model.Response{Text: "ok"}
		case outs["t2"] != "":
			return call("t3", "TaskOutput", fmt.Sprintf(`{"agent_id":%q,"block":false}`, id))
		}
		return call("t2", "Task", fmt.Sprintf(`{"subagent_type":"Explore","prompt":"what was the word?","description":"recall","resume":%q}`, id))
	}
	e2, root2 := start(t, c2, setup{home: home, cwd: cwd})
	runRoot(t, e2, root2, "again")
	if got, want := rawOutput(c2, "t2"), "Subagent execution failed: Transcript not found for agent: "+id; got != want {
		t.Errorf("resume of another session's agent = %q, want %q", got, want)
	}
	if out := toolOutput(t, c2, "t3"); out["status"] != "not_found" {
		t.Errorf("TaskOutput of another session's agent = %v", out)
	}
	if n := len(c2.Requests("Explore")); n != 0 {
		t.Errorf("the other session's agent ran %d model requests in this session", n)
	}
	if info, ok := e2.Info(protocol.ThreadID(id)); ok {
		t.Errorf("another session's agent joined this tree: %+v", info)
	}
}

func TestAutoSurfacePicksTaskForClaude(t *testing.T) {
	for _, tc := range []struct{ model, want, tool, not string }{
		{"claude-sonnet-4-5", "task", "Task", "spawn_agent"},
		{"anthropic/claude-opus", "task", "TaskOutput", "wait"},
		{"gpt-5", "collab", "spawn_agent", "Task"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			c := newScripted(func(string, model.Request) model.Response { return model.Response{Text: "hi"} })
			e, root := start(t, c, setup{model: tc.model, surface: "auto"})
			info, _ := e.Info(root)
			if info.Surface != tc.want {
				t.Errorf("surface = %q, want %q", info.Surface, tc.want)
			}
			runRoot(t, e, root, "hello")
			names := toolNames(c.Requests("root")[0])
			if !slices.Contains(names, tc.tool) || slices.Contains(names, tc.not) {
				t.Errorf("root tools = %v", names)
			}
			// The prompt teaches the surface's own tools.
			instr := c.Requests("root")[0].Instructions
			if !strings.Contains(instr, "# Working with sub-agents\n- When") || !strings.Contains(instr, tc.tool) || strings.Contains(instr, tc.not+" ") {
				t.Errorf("root instructions do not match the %s surface:\n%s", tc.want, instr)
			}
		})
	}
}

func TestPlanForksParentContext(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			outs := outputs(req)
			switch {
			case outs["t1"] != "":
				return model.Response{Text: "planned"}
			case outs["l1"] != "":
				return call("t1", "Task", `{"subagent_type":"Plan","prompt":"plan the change","description":"plan"}`)
			}
			return model.Response{Text: "looking", ToolCalls: []model.ToolCallRequest{{CallID: "l1", Name: "list_dir", Arguments: `{"path":"."}`}}}
		}
		return call("p", "complete_task", `{"result":"1. do it"}`)
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "the secret requirement is zebra")
	req := c.Requests("Plan")[0]
	var text []string
	for _, it := range req.Items {
		if it.Type == protocol.ItemFunctionCall && it.CallID == "t1" {
			t.Errorf("the unresolved Task call was forked into the child")
		}
		text = append(text, it.Content)
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, "zebra") || !strings.Contains(all, "### ENTERING SUB-AGENT ROUTINE ###") {
		t.Errorf("forked context = %q", all)
	}
	// Seed 004: the task is a plain user message, no grove header.
	if lastUser(req) != "plan the change" {
		t.Errorf("last message = %q, want the task prompt alone", lastUser(req))
	}
	if info := mustInfo(t, e, req); info.Sandbox.Mode != protocol.SandboxReadOnly {
		t.Errorf("Plan sandbox = %v, want read-only", info.Sandbox.Mode)
	}
}

func mustInfo(t *testing.T, e *engine.Engine, req model.Request) protocol.ThreadInfo {
	t.Helper()
	for _, ti := range e.Threads() {
		if ti.AgentType == roleOf(req) {
			return ti
		}
	}
	t.Fatalf("no thread of role %s", roleOf(req))
	return protocol.ThreadInfo{}
}

// Seed 004 §3.10: CODEX_SUBAGENT_MODEL, then the call's model, then the
// definition's, then the parent's; the aliases map through
// agents.model_aliases, else to the seed's names.
func TestModelResolutionChain(t *testing.T) {
	aliases := map[string]string{"sonnet": "claude-sonnet-4-5", "haiku": "claude-haiku-4-5"}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		call, def, env, want string
	}{
		{"haiku", "opus-id", "env-model", "env-model"},
		{"haiku", "opus-id", "", "claude-haiku-4-5"},
		{"inherit", "def-model", "", "def-model"},
		{"inherit", "def-model", "inherit", "def-model"},
		{"", "", "sonnet", "claude-sonnet-4-5"},
		{"", "", "", ""},
		{"my-model", "", "", "my-model"},
		{"opus", "", "", "claude-opus"},
		{"", "Opus", "", "claude-opus"},
	}
	for _, tc := range cases {
		env["CODEX_SUBAGENT_MODEL"] = tc.env
		if got := resolveModel(tc.call, tc.def, getenv, aliases); got != tc.want {
			t.Errorf("resolve(%q, %q, env %q) = %q; want %q", tc.call, tc.def, tc.env, got, tc.want)
		}
	}
	env["CODEX_SUBAGENT_MODEL"] = ""
	env["GROVE_SUBAGENT_MODEL"] = "grove-model"
	if got := resolveModel("x", "y", getenv, aliases); got != "grove-model" {
		t.Errorf("GROVE_SUBAGENT_MODEL ignored: %q", got)
	}
	env["CODEX_SUBAGENT_MODEL"] = "codex-model"
	if got := resolveModel("x", "y", getenv, aliases); got != "codex-model" {
		t.Errorf("CODEX_SUBAGENT_MODEL is not first: %q", got)
	}
}

// Seed 004 §3.6.2: TaskOutput reads the background store; a synchronous
// agent (whose Task call already returned its result) is not in it.
func TestTaskOutputOfASynchronousAgentIsNotFound(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role != "root" {
			return call("d", "complete_task", `{"result":"found"}`)
		}
		outs := outputs(req)
		switch {
		case outs["o1"] != "":
			return model.Response{Text: "ok"}
		case outs["t1"] != "":
			return call("o1", "TaskOutput", fmt.Sprintf(`{"agent_id":%q}`, agentID(outs["t1"])))
		}
		return call("t1", "Task", `{"subagent_type":"Explore","prompt":"find","description":"find"}`)
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "x")
	if out := toolOutput(t, c, "t1"); out["status"] != "goal" || !agentIDFormat.MatchString(fmt.Sprint(out["agent_id"])) {
		t.Fatalf("sync Task = %v", out)
	}
	if got := toolOutput(t, c, "o1"); got["status"] != "not_found" || got["message"] != "No task found with that agent_id" {
		t.Errorf("TaskOutput of a synchronous agent = %v", got)
	}
}

// A Task agent that ends its turn without complete_task gets the grace
// step (only complete_task offered); ending that one without it too is
// seed 004's ErrorNoCompleteTaskCall, with what it said as the result.
func TestEndingWithoutCompleteTask(t *testing.T) {
	for _, tc := range []struct {
		name       string
		obeysGrace bool
		wantStatus string
		wantResult string
	}{
		{"ignores the grace step", false, "error_no_complete_task_call", "still thinking"},
		{"completes in the grace step", true, "goal", "{\n  \"result\": \"late answer\"\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newScripted(nil)
			c.Reply = func(role string, req model.Request) model.Response {
				if role == "root" {
					if _, ok := outputs(req)["t1"]; ok {
						return model.Response{Text: "ok"}
					}
					return call("t1", "Task", `{"subagent_type":"Explore","prompt":"look","description":"look"}`)
				}
				if strings.HasPrefix(lastUser(req), "You ended your turn without calling `complete_task`. You have one final chance to complete the task.") {
					if names := toolNames(req); !slices.Equal(names, []string{"complete_task"}) {
						t.Errorf("grace tools = %v", names)
					}
					if tc.obeysGrace {
						return call("g", "complete_task", `{"result":"late answer"}`)
					}
				}
				return model.Response{Text: "still thinking"}
			}
			e, root := start(t, c, setup{})
			runRoot(t, e, root, "go")
			out := toolOutput(t, c, "t1")
			if out["status"] != tc.wantStatus || out["result"] != tc.wantResult {
				t.Errorf("Task = %v, want %s / %q", out, tc.wantStatus, tc.wantResult)
			}
			if n := len(c.Requests("Explore")); n != 2 {
				t.Errorf("Explore made %d requests, want its turn and the grace step", n)
			}
		})
	}
}

// Seed 004 §3.9: a definition with approvalMode suppress never asks the
// user; an escalation is refused at once instead of waiting for someone.
func TestApprovalModeSuppressNeverAsks(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"quiet","prompt":"run it","description":"run"}`)
		case "quiet":
			if out, ok := outputs(req)["x"]; ok {
				return call("d", "complete_task", fmt.Sprintf(`{"result":%q}`, out))
			}
			return call("x", "exec_command", `{"cmd":"echo hi","sandbox_permissions":"require_escalated","justification":"test"}`)
		}
		return model.Response{}
	}
	yaml := "agentType: quiet\nwhenToUse: runs quietly\napprovalMode: suppress\n"
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"quiet.yaml": yaml}), trust: true, interactive: true})
	if err := e.SubmitText(root, "go"); err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := e.WaitFinal(context.Background(), root, 30*time.Second); err != nil || timedOut {
		t.Fatalf("root never finished (an approval waiting for the user?): %v %v; pending %v", timedOut, err, e.PendingApprovals())
	}
	if res, _ := toolOutput(t, c, "t1")["result"].(string); !strings.Contains(res, "runs non-interactively") {
		t.Errorf("escalation under approvalMode suppress = %q", res)
	}
}

// Seed 004: a definition's modelConfig temperature and topP reach the
// agent's model requests; an agent without them sends neither.
func TestModelConfigReachesTheRequests(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			outs := outputs(req)
			switch {
			case outs["t2"] != "":
				return model.Response{Text: "ok"}
			case outs["t1"] != "":
				return call("t2", "Task", `{"subagent_type":"Explore","prompt":"x","description":"x"}`)
			}
			return call("t1", "Task", `{"subagent_type":"tuned","prompt":"x","description":"x"}`)
		}
		return call("d", "complete_task", `{}`)
	}
	yaml := "agentType: tuned\nwhenToUse: tuned sampling\nmodelConfig:\n  temperature: 0.1\n  topP: 0.9\n"
	e, root := start(t, c, setup{cwd: project(t, map[string]string{"tuned.yaml": yaml})})
	runRoot(t, e, root, "go")
	tuned := c.Requests("tuned")
	if len(tuned) == 0 || tuned[0].Temperature == nil || *tuned[0].Temperature != 0.1 || tuned[0].TopP == nil || *tuned[0].TopP != 0.9 {
		t.Fatalf("tuned agent's request sampling: %+v", tuned)
	}
	if ex := c.Requests("Explore"); len(ex) == 0 || ex[0].Temperature != nil || ex[0].TopP != nil {
		t.Errorf("Explore sent sampling settings it was not given")
	}
	if out := toolOutput(t, c, "t1"); out["result"] != "{}" {
		t.Errorf("complete_task{} result = %v, want the seed's pretty {}", out["result"])
	}
}

// Seed 004 §5.2: a Task agent's activity reaches its parent's thread as
// subagent_activity events with the seed's field names and event types:
// started, each step, each tool call, the grace period, the end.
func TestSubagentActivityEvents(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "ok"}
			}
			return call("t1", "Task", `{"subagent_type":"Explore","prompt":"look","description":"look around"}`)
		}
		if _, ok := outputs(req)["l"]; !ok {
			r := call("l", "list_dir", `{"path":"."}`)
			r.Reasoning = "the layout first"
			return r
		}
		if strings.HasPrefix(lastUser(req), "You ended your turn") {
			return call("g", "complete_task", `{"result":"done"}`)
		}
		return model.Response{Text: "thinking aloud"}
	}
	e, root := start(t, c, setup{})
	events, cancel := e.Subscribe()
	defer cancel()
	runRoot(t, e, root, "go")
	want := []protocol.SubagentEventType{
		protocol.ActivityStarted, protocol.ActivityTurnStart, protocol.ActivityThoughtChunk, protocol.ActivityTurnComplete,
		protocol.ActivityToolCallStart, protocol.ActivityToolCallEnd,
		protocol.ActivityGracePeriodStart, protocol.ActivityToolCallStart, protocol.ActivityGracePeriodEnd,
		protocol.ActivityCompleted,
	}
	var got []protocol.SubagentEventType
	var first protocol.SubagentActivityEvent
	var thought *protocol.SubagentActivityEvent
	deadline := time.After(10 * time.Second)
	for len(got) == 0 || got[len(got)-1] != protocol.ActivityCompleted {
		select {
		case ev := <-events:
			if ev.Type != protocol.EventSubagentActivity {
				continue
			}
			if ev.ThreadID != root {
				t.Fatalf("activity on thread %s, want the parent %s", ev.ThreadID, root)
			}
			if len(got) == 0 {
				first = *ev.SubagentActivity
			}
			if a := ev.SubagentActivity; a.EventType == protocol.ActivityThoughtChunk {
				thought = a
			}
			got = append(got, ev.SubagentActivity.EventType)
		case <-deadline:
			t.Fatalf("activity so far: %v", got)
		}
	}
	// Every wanted type appears, in this order (steps repeat in between).
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	if i != len(want) {
		t.Errorf("activity = %v, want in order %v", got, want)
	}
	// THOUGHT_CHUNK carries the streamed reasoning as the seed's {text}.
	if b, _ := json.Marshal(thought); thought == nil || thought.AgentID != first.AgentID || !strings.Contains(string(b), `"event_type":"THOUGHT_CHUNK","data":{"text":"the layout first"}`) {
		t.Errorf("THOUGHT_CHUNK event = %s", b)
	}
	b, _ := json.Marshal(first)
	if !agentIDFormat.MatchString(string(first.AgentID)) || !strings.Contains(string(b), `"agent_type":"Explore","event_type":"STARTED","data":{"description":"look around"}`) {
		t.Errorf("STARTED event = %s", b)
	}
}
