package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// TestExecTaskSurfaceEndToEnd drives `grove exec --json -c
// agents.surface=task` against the scripted provider: the root calls
// Task on a seed-004 YAML agent, whose first complete_task breaks the
// output schema and whose retry passes.
func TestExecTaskSurfaceEndToEnd(t *testing.T) {
	noProviderEnv(t)
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(work, ".grove", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "agentType: summarizer\nwhenToUse: summarizes a file\ntools: [Read]\ninputConfig:\n  inputs:\n    file: {type: string, required: true, description: the file}\noutputConfig:\n  outputName: summary\n  description: the summary\n  schema: {type: object, properties: {text: {type: string}, words: {type: integer}}, required: [text, words]}\npromptConfig:\n  query: Summarize ${file}.\n"
	if err := os.WriteFile(filepath.Join(agents, "summarizer.yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		last, _ := msgs[len(msgs)-1].(map[string]any)
		tools := 0
		for _, m := range msgs {
			if mm, _ := m.(map[string]any); mm["role"] == "tool" {
				tools++
			}
		}
		// The summarizer is the one offered complete_task (its system
		// prompt is its definition's alone: seed 004).
		if strings.Contains(string(r.Raw), `"complete_task"`) {
			if tools == 0 {
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "complete_task", Arguments: `{"summary":{"text":"short"}}`}}}
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s2", Name: "complete_task", Arguments: `{"summary":{"text":"short","words":1}}`}}}
		}
		if last["role"] == "tool" {
			return modeltest.Reply{Text: "Task said: " + fmt.Sprint(last["content"])}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "Task", Arguments: `{"subagent_type":"summarizer","prompt":"be brief","description":"summarize notes","inputs":{"file":"notes.txt"}}`}}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	home := t.TempDir()
	out, errOut, err := runCLI(t, home, "", "exec", "--json=grove", "-c", "agents.surface=task", "--cd", work, "-m", "test-model", "summarize notes.txt")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	var taskEnd map[string]any
	var sawRetry bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		tool, _ := ev["tool"].(map[string]any)
		if ev["type"] != "tool_call_end" || tool == nil {
			continue
		}
		switch tool["name"] {
		case "Task":
			taskEnd = tool
		case "complete_task":
			if tool["is_error"] == true && strings.Contains(fmt.Sprint(tool["output"]), "words") {
				sawRetry = true
			}
		}
	}
	if taskEnd == nil {
		t.Fatalf("no Task tool_call_end in the --json stream:\n%s", out)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(taskEnd["output"].(string)), &res); err != nil {
		t.Fatalf("Task output: %v", err)
	}
	// Seed 004: the result is complete_task's output as pretty-printed JSON.
	if res["status"] != "goal" || res["result"] != "{\n  \"text\": \"short\",\n  \"words\": 1\n}" {
		t.Errorf("Task result = %v", res)
	}
	if !sawRetry {
		t.Errorf("the schema violation never reached the model as a complete_task error:\n%s", out)
	}
	// The request the root saw carried Task, not spawn_agent.
	first := string(s.Requests()[0].Raw)
	if !strings.Contains(first, `"Task"`) || strings.Contains(first, `"spawn_agent"`) {
		t.Errorf("root tools under agents.surface=task:\n%s", first)
	}
}

func TestAgentsListShowsSurface(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	out, _, err := runCLI(t, home, "", "agents", "list", "-c", "agents.surface=task")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "tool surface: task") || !strings.Contains(out, "SURFACE") {
		t.Errorf("agents list:\n%s", out)
	}
	js, _, err := runCLI(t, home, "", "agents", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Surface string `json:"surface"`
		Agents  []struct {
			Surface string `json:"surface"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil || v.Surface != "collab" || len(v.Agents) == 0 || v.Agents[0].Surface != "collab" {
		t.Errorf("agents list --json: %v\n%s", err, js)
	}
	if _, _, err := runCLI(t, home, "", "agents", "list", "-c", "agents.surface=bogus"); err == nil || !strings.Contains(err.Error(), "agents.surface") {
		t.Errorf("a bad agents.surface was accepted: %v", err)
	}
}
