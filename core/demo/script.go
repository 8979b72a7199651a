package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Model names shown for the demo.
const (
	ProviderName = "demo"
	ModelName    = "grove-demo"
)

// NewClient returns the scripted demo provider. chunkDelay paces streamed
// text so the tree plays out visibly in the TUI (0 for headless runs).
func NewClient(chunkDelay time.Duration) model.Client {
	opts := []model.ScriptedOption{model.WithModels([]model.ModelInfo{{ID: ModelName}})}
	if chunkDelay > 0 {
		opts = append(opts, model.WithChunkDelay(chunkDelay))
	}
	return model.NewScripted(ProviderName, Respond, opts...)
}

// Respond is the demo script: it reads the conversation so far and decides
// the next reply, so it reacts to real tool results (a denied approval, a
// failed command) like a model would.
func Respond(_ context.Context, req model.Request) (model.Response, error) {
	turn := ParseTurn(req.Items)
	var r model.Response
	switch {
	case strings.Contains(req.Instructions, "# Your role: explorer"):
		r = explorer(turn)
	case strings.Contains(req.Instructions, "# Your role: worker"):
		r = worker(turn)
	case offers(req, toolTask) && !replayed(req.Items):
		return taskRoot(turn, workingDir(req.Instructions)), nil
	default:
		return root(req.Items, turn, workingDir(req.Instructions)), nil
	}
	// A Task agent hands its result back with complete_task.
	if offers(req, toolCompleteTask) {
		r = completing(r)
	}
	return r, nil
}

// replayed reports whether the user spoke again after the demo's one
// task (the demo can only replay it).
func replayed(items []protocol.Item) bool {
	userTurns := 0
	for _, it := range items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			userTurns++
		}
	}
	return userTurns > 1
}

// workingDir reads the session's working directory out of the instructions
// the engine sends ("- working directory: DIR"), so the demo's last message
// can say where it worked. "" when the line is missing.
func workingDir(instructions string) string {
	const key = "- working directory: "
	i := strings.LastIndex(instructions, key)
	if i < 0 {
		return ""
	}
	dir, _, _ := strings.Cut(instructions[i+len(key):], "\n")
	return strings.TrimSpace(dir)
}

// Turn is what happened since the last user message: how scripted models
// (the demo and engine tests) decide their next reply.
type Turn struct {
	Rounds  int               // tool-call rounds so far
	Outputs map[string]string // call id → output, this turn
	Calls   []protocol.Item   // function calls, this turn
	Prompt  string            // the last user message
}

// ParseTurn reads the current turn out of a conversation.
func ParseTurn(items []protocol.Item) Turn {
	st := Turn{Outputs: map[string]string{}}
	start := 0
	for i, it := range items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			start = i
			st.Prompt = it.Content
		}
	}
	prevCall := false
	for _, it := range items[start:] {
		switch it.Type {
		case protocol.ItemFunctionCall:
			if !prevCall {
				st.Rounds++
			}
			st.Calls = append(st.Calls, it)
			prevCall = true
		case protocol.ItemFunctionCallOutput:
			st.Outputs[it.CallID] = it.Output
			prevCall = false
		default:
			prevCall = false
		}
	}
	return st
}

func call(id, name string, args any) model.ToolCallRequest {
	b, _ := json.Marshal(args)
	return model.ToolCallRequest{CallID: id, Name: name, Arguments: string(b)}
}

func usage(in, out int64) protocol.TokenUsage {
	return protocol.TokenUsage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
}

// root plays an orchestrator: plan, spawn an explorer and a worker (the
// worker in another directory, which needs approval), wait, close, report.
func root(items []protocol.Item, st Turn, dir string) model.Response {
	if replayed(items) {
		return model.Response{Text: "This is grove's **offline demo model**, so I can only replay the demo. Configure a real model to keep going: set `OPENAI_API_KEY`, or add a provider to `$GROVE_HOME/config.toml` (see the README).", Usage: usage(900, 60)}
	}
	p := readProgress(st)
	n := st.Rounds
	switch {
	case n == 0:
		return opening()
	case len(p.spawnFailed) > 0 && n < 3 && !hasRespawn(st):
		return model.Response{
			Text:      "The working-directory change was not approved, so the worker will run in the project root instead.",
			ToolCalls: []model.ToolCallRequest{call("demo_respawn_worker", "spawn_agent", workerSpawnArgs(""))},
			Usage:     usage(1400, 90),
		}
	}
	var pending []string
	for id := range p.spawned {
		if _, ok := p.final[id]; !ok {
			pending = append(pending, id)
		}
	}
	if len(pending) > 0 && n < 12 {
		return model.Response{ToolCalls: []model.ToolCallRequest{call(fmt.Sprintf("demo_wait_%d", n), "wait", map[string]any{"ids": sorted(pending), "timeout_ms": 120000})}, Usage: usage(1500, 30)}
	}
	var toClose []model.ToolCallRequest
	for _, id := range sorted(keys(p.spawned)) {
		if !p.closed[id] {
			toClose = append(toClose, call("demo_close_"+string(protocol.ThreadID(id).Short()), "close_agent", map[string]any{"id": id}))
		}
	}
	if len(toClose) > 0 && n < 12 {
		toClose = append(toClose, call("demo_plan_2", "update_plan", map[string]any{"plan": demoPlan("completed", "completed", "completed")}))
		return model.Response{Text: "Both agents reported back; closing them.", ToolCalls: toClose, Usage: usage(1700, 60)}
	}
	return summary(p, dir)
}

// progress is what the root's earlier tool calls in this turn came back with.
type progress struct {
	spawned     map[string]string // agent id → role
	spawnFailed []string          // roles whose spawn failed
	final       map[string]protocol.AgentStatus
	closed      map[string]bool
}

func readProgress(st Turn) progress {
	p := progress{spawned: map[string]string{}, final: map[string]protocol.AgentStatus{}, closed: map[string]bool{}}
	for _, c := range st.Calls {
		out, ok := st.Outputs[c.CallID]
		if !ok {
			continue
		}
		var args map[string]any
		_ = json.Unmarshal([]byte(c.Arguments), &args)
		switch c.Name {
		case "spawn_agent":
			var res struct {
				AgentID string `json:"agent_id"`
			}
			role, _ := args["agent_type"].(string)
			if json.Unmarshal([]byte(out), &res) == nil && res.AgentID != "" {
				p.spawned[res.AgentID] = role
			} else {
				p.spawnFailed = append(p.spawnFailed, role)
			}
		case "wait":
			var res struct {
				Status map[string]protocol.AgentStatus `json:"status"`
			}
			if json.Unmarshal([]byte(out), &res) == nil {
				for id, s := range res.Status {
					p.final[id] = s
				}
			}
		case "close_agent":
			if id, _ := args["id"].(string); id != "" {
				p.closed[id] = true
			}
		}
	}
	return p
}

// opening is the root's first reply: the plan and both spawns.
func opening() model.Response {
	return model.Response{
		Text: "I'll split this in two: an **explorer** surveys the project read-only while a **worker** adds the greeting in `service/`.",
		ToolCalls: []model.ToolCallRequest{
			call("demo_plan_1", "update_plan", map[string]any{"explanation": "Demo plan", "plan": demoPlan("in_progress", "pending", "pending")}),
			call("demo_spawn_explorer", "spawn_agent", map[string]any{
				"agent_type": "explorer", "thread_note": "survey the demo project",
				"message": "Survey this project: list its files, read the README and find every Go function. Report what you find with file:line references.",
			}),
			call("demo_spawn_worker", "spawn_agent", workerSpawnArgs("service")),
		},
		Usage: usage(1200, 180),
	}
}

// workerSpawnArgs are the worker's spawn arguments, in dir when it is not empty.
func workerSpawnArgs(dir string) map[string]any {
	args := map[string]any{
		"agent_type": "worker", "thread_note": "add Farewell to service/greet.go",
		"message": "In service/greet.go add `func Farewell(name string) string` returning \"goodbye, \" + name, next to Greet. Verify the file afterwards and report the change.",
	}
	if dir != "" {
		args["working_directory"] = dir
	}
	return args
}

func demoPlan(survey, farewell, review string) []map[string]string {
	return []map[string]string{
		{"step": "Survey the project (explorer)", "status": survey},
		{"step": "Add a farewell greeting in service/ (worker)", "status": farewell},
		{"step": "Review results and close the agents", "status": review},
	}
}

// summary is the root's last reply: what each agent reported.
func summary(p progress, dir string) model.Response {
	var b strings.Builder
	b.WriteString("## Demo complete\n\n")
	for _, id := range sorted(keys(p.spawned)) {
		s := p.final[id]
		msg := s.Message
		if !s.HasMessage {
			msg = string(s.Kind)
		}
		fmt.Fprintf(&b, "- **%s** (`%s`): %s\n", p.spawned[id], protocol.ThreadID(id).Short(), firstLine(msg))
	}
	b.WriteString("\nEverything above ran for real in a scratch directory: tool calls, the sandbox, the approval and the agent tree. ")
	if strings.Contains(filepath.Base(dir), "grove-demo-") {
		fmt.Fprintf(&b, "The scratch project was `%s`; grove removes it when it exits (start grove with `--keep-demo-dir` to keep it). ", dir)
	} else if dir != "" {
		fmt.Fprintf(&b, "The demo worked in `%s`. ", dir)
	}
	b.WriteString("Set `OPENAI_API_KEY` (or configure a provider) to put a real model in charge.")
	return model.Response{Text: b.String(), Usage: usage(2000, 160)}
}

func hasRespawn(st Turn) bool {
	for _, c := range st.Calls {
		if c.CallID == "demo_respawn_worker" {
			return true
		}
	}
	return false
}

// explorer surveys the scratch project read-only.
func explorer(st Turn) model.Response {
	switch st.Rounds {
	case 0:
		return model.Response{
			Text: "Looking around first.",
			ToolCalls: []model.ToolCallRequest{
				call("demo_ls", "list_dir", map[string]any{"path": ".", "depth": 2}),
				call("demo_readme", "read_file", map[string]any{"path": "README.md"}),
			},
			Usage: usage(800, 40),
		}
	case 1:
		return model.Response{
			ToolCalls: []model.ToolCallRequest{call("demo_grep", "grep_files", map[string]any{"pattern": `^func `, "include": "**/*.go"})},
			Usage:     usage(950, 20),
		}
	}
	funcs := st.Outputs["demo_grep"]
	return model.Response{
		Text:  "The project has a `main.go` entry point and a `service` package with a tested `Greet` function.\n\nFunctions found:\n```\n" + strings.TrimSpace(funcs) + "\n```",
		Usage: usage(1100, 120),
	}
}

// worker edits service/greet.go (wherever its working directory is).
func worker(st Turn) model.Response {
	path := "greet.go"
	if out, ok := st.Outputs["demo_read"]; ok && strings.Contains(out, "no such file") {
		path = "service/greet.go"
	}
	switch st.Rounds {
	case 0:
		return model.Response{
			ToolCalls: []model.ToolCallRequest{call("demo_read", "read_file", map[string]any{"path": "greet.go"})},
			Usage:     usage(700, 20),
		}
	case 1:
		if strings.Contains(st.Outputs["demo_read"], "no such file") || strings.HasPrefix(st.Outputs["demo_read"], "read_file:") {
			path = "service/greet.go"
		}
		patch := "*** Begin Patch\n*** Update File: " + path + "\n@@ func Greet(name string) string {\n \treturn \"hello, \" + name\n }\n+\n+// Farewell returns a goodbye for name.\n+func Farewell(name string) string {\n+\treturn \"goodbye, \" + name\n+}\n*** End Patch"
		return model.Response{
			Text:      "Adding `Farewell` next to `Greet`.",
			ToolCalls: []model.ToolCallRequest{call("demo_patch", "apply_patch", map[string]any{"input": patch})},
			Usage:     usage(900, 110),
		}
	case 2:
		return model.Response{
			ToolCalls: []model.ToolCallRequest{call("demo_check", "exec_command", map[string]any{"cmd": "grep -n 'func ' *.go service/*.go 2>/dev/null; wc -l *.go service/*.go 2>/dev/null | tail -n 1"})},
			Usage:     usage(1000, 30),
		}
	}
	patchOut := st.Outputs["demo_patch"]
	if !strings.HasPrefix(patchOut, "Success") {
		return model.Response{Text: "I could not apply the change: " + firstLine(patchOut), Usage: usage(1100, 40)}
	}
	return model.Response{
		Text:  "Added `Farewell(name string) string` to " + path + " and checked it:\n```\n" + strings.TrimSpace(st.Outputs["demo_check"]) + "\n```",
		Usage: usage(1200, 90),
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	// A line that introduces what followed it ("… and checked it:") ends
	// the summary without the colon, or the summary dangles.
	if t, ok := strings.CutSuffix(s, ":"); ok {
		s = t + "."
	}
	return s
}

func keys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
