package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

func withModels(s script, list []model.ModelInfo, err error) func(*Options) {
	return func(o *Options) {
		opts := []model.ScriptedOption{}
		if err != nil {
			opts = append(opts, model.WithModelsError(err))
		} else {
			opts = append(opts, model.WithModels(list))
		}
		o.Client = model.NewScripted("test", s.fn(), opts...)
	}
}

func TestSpawnValidationErrorsAreVerbatim(t *testing.T) {
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(
					toolCall("bad_type", "spawn_agent", map[string]any{"agent_type": "Bad Type!", "message": "x"}),
					toolCall("missing", "spawn_agent", map[string]any{"agent_type": "nope", "message": "x"}),
					toolCall("name_only", "spawn_agent", map[string]any{"agent_name": "careful", "message": "x"}),
					toolCall("bad_persona", "spawn_agent", map[string]any{"agent_type": "worker", "agent_name": "zzz", "message": "x"}),
					toolCall("no_msg", "spawn_agent", map[string]any{"agent_type": "worker"}),
					toolCall("bad_model", "spawn_agent", map[string]any{"message": "x", "model": "gpt-unknown"}),
					toolCall("bad_effort", "spawn_agent", map[string]any{"message": "x", "model": "other-model", "reasoning_effort": "medium"}),
					toolCall("bad_dir", "spawn_agent", map[string]any{"message": "x", "working_directory": "does/not/exist"}),
				), nil
			}
			return text("checked"), nil
		},
	}
	env := newEnv(t, s, withModels(s, []model.ModelInfo{{ID: "test-model"}, {ID: "other-model", ReasoningEfforts: []string{"low", "high"}}}, nil))
	env.send("go")
	env.rootFinal(1)
	for id, want := range map[string]string{
		"bad_type":    "invalid agent_type",
		"missing":     "missing agent template: nope",
		"name_only":   "agent_name requires a non-default agent_type",
		"bad_persona": "zzz",
		"no_msg":      "message or items",
		"bad_model":   `unknown model "gpt-unknown"; available models: other-model, test-model`,
		"bad_effort":  `unsupported reasoning_effort "medium" for model other-model; supported: low, high`,
		"bad_dir":     "does/not/exist",
	} {
		out := env.toolOutput(id)
		if !out.IsError || !strings.Contains(out.Output, want) {
			t.Errorf("%s: want error containing %q, got %q", id, want, out.Output)
		}
	}
	// Nothing was spawned by any of them.
	if n := len(env.e.Threads()); n != 1 {
		t.Fatalf("%d threads after rejected spawns", n)
	}
}

func TestSpawnModelListUnavailableIsRetryable(t *testing.T) {
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(
					toolCall("m", "spawn_agent", map[string]any{"message": "x", "model": "any"}),
					toolCall("plain", "spawn_agent", map[string]any{"message": "no override"}),
				), nil
			}
			return text("ok"), nil
		},
		"default": func(context.Context, turn) (model.Response, error) { return text("child"), nil },
	}
	env := newEnv(t, s, withModels(s, nil, model.ErrModelsUnavailable))
	env.send("go")
	env.rootFinal(1)
	if out := env.toolOutput("m"); out.Output != "Models are being updated; try spawn_agent again in a moment." {
		t.Fatalf("got %q", out.Output)
	}
	if out := env.toolOutput("plain"); out.IsError {
		t.Fatalf("spawn without override must not need the list: %s", out.Output)
	}
}

func TestModelPrecedenceAndToolPolicy(t *testing.T) {
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(
					toolCall("tpl", "spawn_agent", map[string]any{"agent_type": "custom", "message": "x"}),
					toolCall("persona", "spawn_agent", map[string]any{"agent_type": "custom", "agent_name": "deep", "message": "x"}),
					toolCall("override", "spawn_agent", map[string]any{"agent_type": "custom", "agent_name": "deep", "model": "m-override", "reasoning_effort": "low", "message": "x"}),
					toolCall("inherit", "spawn_agent", map[string]any{"message": "x"}),
				), nil
			}
			return text("ok"), nil
		},
		"custom": func(_ context.Context, tn turn) (model.Response, error) {
			var names []string
			for _, ts := range tn.req.Tools {
				names = append(names, ts.Name)
			}
			return text(strings.Join(names, ",")), nil
		},
		"default": func(context.Context, turn) (model.Response, error) { return text("d"), nil },
	}
	models := []model.ModelInfo{{ID: "test-model"}, {ID: "m-role"}, {ID: "m-persona"}, {ID: "m-override"}}
	env := newEnv(t, s, func(o *Options) {
		withModels(s, models, nil)(o)
		dir := filepath.Join(o.Cwd, ".grove", "agents")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		tpl := "---\ndescription: custom role\nmodel: m-role\nreasoning_effort: high\nagent_names:\n  - name: deep\n    description: deeper\n    model: m-persona\n    reasoning_effort: medium\nallow_list:\n  - read_*\n  - list_dir\n  - exec_command\ndeny_list:\n  - exec_*\n---\nDefault custom prompt.\n\n<!-- agent_name: deep -->\nDeep persona prompt.\n"
		if err := os.WriteFile(filepath.Join(dir, "custom.md"), []byte(tpl), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Templates = templates.Load(templates.Dirs{Cwd: o.Cwd, GroveHome: o.Home, UserHome: filepath.Dir(o.Home)}, templates.Options{})
	})
	env.send("go")
	env.rootFinal(1)
	check := func(id, model, effort string) *Thread {
		t.Helper()
		out := env.toolOutput(id)
		if out.IsError {
			t.Fatalf("%s: %s", id, out.Output)
		}
		th := env.e.thread(spawnedID(t, out.Output))
		info := th.info()
		if info.Model != model || info.ReasoningEffort != effort {
			t.Errorf("%s: model %s/%s, want %s/%s", id, info.Model, info.ReasoningEffort, model, effort)
		}
		return th
	}
	tplChild := check("tpl", "m-role", "high")
	check("persona", "m-persona", "medium")
	check("override", "m-override", "low")
	check("inherit", "test-model", "")
	// allow read_* and list_dir and exec_command, deny exec_*: deny wins.
	env.waitFor("custom child done", func(ev protocol.Event) bool {
		return ev.ThreadID == tplChild.id && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusCompleted
	})
	st, _ := tplChild.Status()
	if st.Message != "read_file,list_dir" {
		t.Fatalf("custom toolset %q", st.Message)
	}
	if !strings.Contains(tplChild.instructions, "Default custom prompt.") {
		t.Fatal("template prompt missing from instructions")
	}
}

func TestMaxThreadsCountsOnlyActiveChildren(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("quick", "spawn_agent", map[string]any{"agent_type": "worker", "message": "finish"})), nil
			case 1:
				return calls(toolCall("wq", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("quick"))}})), nil
			case 2:
				// The finished idle child holds no slot.
				return calls(toolCall("busy", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "block"})), nil
			case 3:
				return calls(toolCall("over", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "block"})), nil
			}
			return text("done"), nil
		},
		"worker":   func(context.Context, turn) (model.Response, error) { return text("quick done"), nil },
		"explorer": block,
	}, func(o *Options) { o.MaxThreads = 1 })
	env.send("go")
	env.rootFinal(1)
	if out := env.toolOutput("busy"); out.IsError {
		t.Fatalf("slot not freed by finished child: %s", out.Output)
	}
	out := env.toolOutput("over")
	if !out.IsError || !strings.Contains(out.Output, "max_threads") || !strings.Contains(out.Output, "close_agent") {
		t.Fatalf("limit error %q", out.Output)
	}
}

func TestMaxDepth(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("d1", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "go deeper"})), nil
			}
			return text("done"), nil
		},
		"orchestrator": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("deeper", "spawn_agent", map[string]any{"agent_type": "orchestrator", "message": "go deeper"})), nil
			}
			return text("orch: " + tn.output("deeper")), nil
		},
	}, func(o *Options) { o.MaxDepth = 1 })
	env.send("go")
	env.rootFinal(1)
	out := env.toolOutput("deeper")
	if !out.IsError || !strings.Contains(out.Output, "max_depth") {
		t.Fatalf("depth error %q", out.Output)
	}
}

func TestReadOnlyTemplateSandboxBlocksWrites(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("x", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "try to write"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("x"))}})), nil
			}
			return text("done"), nil
		},
		"explorer": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("touch", "exec_command", map[string]any{"cmd": "echo hi > written.txt"})), nil
			}
			return text("tried"), nil
		},
	}, func(o *Options) {
		o.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
		o.ApprovalPolicy = protocol.ApprovalNever
	})
	env.send("go")
	env.rootFinal(1)
	child := env.e.thread(spawnedID(t, env.toolOutput("x").Output))
	if child.info().Sandbox.Mode != protocol.SandboxReadOnly {
		t.Fatalf("explorer sandbox %s", child.info().Sandbox.Mode)
	}
	out := env.toolOutput("touch")
	if _, err := os.Stat(filepath.Join(env.cwd, "written.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only agent wrote a file (output %q)", out.Output)
	}
	if !strings.Contains(out.Output, "ermission denied") && !strings.Contains(out.Output, "Read-only") && !strings.Contains(out.Output, "Landlock") {
		t.Fatalf("unexpected output %q", out.Output)
	}
}

func TestInterruptRootReachesDescendantsCommands(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	env := newEnv(t, script{
		"root": func(ctx context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "message": "sleep"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			}
			return text("after interrupt"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("sleep", "exec_command", map[string]any{"cmd": "echo $$ > " + pidfile + "; sleep 300", "timeout_ms": 600000})), nil
			}
			return text("woke"), nil
		},
	}, nil)
	env.send("go")
	env.waitFor("sleep started", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventToolCallBegin && ev.Tool.CallID == "sleep"
	})
	for {
		if b, err := os.ReadFile(pidfile); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			break
		}
		env.waitFor("tick", func(protocol.Event) bool { return true })
	}
	if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	st := env.rootFinal(1)
	if st.Kind != protocol.StatusInterrupted {
		t.Fatalf("root %v", st)
	}
	child := spawnedID(t, env.toolOutput("s").Output)
	env.waitFor("child interrupted", func(ev protocol.Event) bool {
		return ev.ThreadID == child && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusInterrupted
	})
	out := env.toolOutput("sleep")
	if !out.IsError {
		t.Fatalf("interrupted command should be an error: %+v", out)
	}
	pidb, _ := os.ReadFile(pidfile)
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pidb))); err == nil {
		if stat, _ := os.ReadFile("/proc/" + strings.TrimSpace(string(pidb)) + "/stat"); !strings.Contains(string(stat), ") Z") {
			t.Fatalf("command process %s still alive", strings.TrimSpace(string(pidb)))
		}
	}
}

func TestResumeAgentRestoresHistoryAndIsNoopWhenActive(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "message": "remember 42"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			case 2:
				return calls(toolCall("noop", "resume_agent", map[string]any{"id": agentIDFrom(tn.output("s"))})), nil
			case 3:
				return calls(toolCall("c", "close_agent", map[string]any{"id": agentIDFrom(tn.output("s"))})), nil
			case 4:
				return calls(toolCall("r", "resume_agent", map[string]any{"id": agentIDFrom(tn.output("s"))})), nil
			case 5:
				return calls(toolCall("in", "send_input", map[string]any{"id": agentIDFrom(tn.output("s")), "message": "what did I say?"})), nil
			case 6:
				return calls(toolCall("w2", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			}
			return text(tn.output("w2")), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			var users []string
			for _, it := range tn.req.Items {
				if it.Role == protocol.RoleUser {
					users = append(users, inputText(it))
				}
			}
			return text("seen: " + strings.Join(users, " | ")), nil
		},
	}, nil)
	env.send("go")
	st := env.rootFinal(1)
	if !strings.Contains(st.Message, "seen: remember 42 | what did I say?") {
		t.Fatalf("resumed child lost history: %q", st.Message)
	}
	var noop struct{ Status protocol.AgentStatus }
	_ = json.Unmarshal([]byte(env.toolOutput("noop").Output), &noop)
	if noop.Status.Kind != protocol.StatusCompleted {
		t.Fatalf("resume on active agent should report its status: %+v", noop)
	}
	if out := env.toolOutput("r"); out.IsError {
		t.Fatalf("resume failed: %s", out.Output)
	}
}

func TestSendInputInterruptAndClosedTarget(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"agent_type": "worker", "message": "block"})), nil
			case 1:
				return calls(toolCall("i", "send_input", map[string]any{"id": agentIDFrom(tn.output("s")), "message": "stop and answer", "interrupt": true})), nil
			case 2:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			case 3:
				return calls(toolCall("c", "close_agent", map[string]any{"id": agentIDFrom(tn.output("s"))})), nil
			case 4:
				return calls(toolCall("late", "send_input", map[string]any{"id": agentIDFrom(tn.output("s")), "message": "hello?"})), nil
			}
			return text("done"), nil
		},
		"worker": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.prompt == "stop and answer" {
				return text("answered"), nil
			}
			return block(ctx, tn)
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	if !strings.Contains(env.toolOutput("w").Output, "answered") {
		t.Fatalf("wait after interrupt: %s", env.toolOutput("w").Output)
	}
	late := env.toolOutput("late")
	if !late.IsError || !strings.Contains(late.Output, "resume_agent") {
		t.Fatalf("send to closed agent: %+v", late)
	}
}

func TestListAgentsTool(t *testing.T) {
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(
					toolCall("all", "list_agents", map[string]any{}),
					toolCall("one", "list_agents", map[string]any{"agent_type": "worker", "expanded": true}),
					toolCall("bad", "list_agents", map[string]any{"agent_type": "NOT VALID"}),
				), nil
			}
			return text("ok"), nil
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	var all struct {
		Agents []map[string]any `json:"agents"`
	}
	if err := json.Unmarshal([]byte(env.toolOutput("all").Output), &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Agents) < 3 {
		t.Fatalf("catalog %+v", all)
	}
	for _, a := range all.Agents {
		for _, forbidden := range []string{"model", "reasoning_effort", "default_prompt", "count"} {
			if _, ok := a[forbidden]; ok {
				t.Fatalf("non-expanded list has %s", forbidden)
			}
		}
	}
	if !strings.Contains(env.toolOutput("one").Output, "default_prompt") {
		t.Fatal("expanded missing default_prompt")
	}
	if out := env.toolOutput("bad"); !out.IsError || !strings.Contains(out.Output, "invalid agent_type") {
		t.Fatalf("bad filter %q", out.Output)
	}
}
