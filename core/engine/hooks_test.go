package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// hooksFor writes a grove hooks.json of event → command into a fresh
// directory and returns a runner for it (reviews bypassed, as
// --dangerously-bypass-hook-trust) and the directory; "LOG/" in a
// command names it.
func hooksFor(t *testing.T, cmds map[hooks.Event]string) (*hooks.Runner, string) {
	t.Helper()
	dir := t.TempDir()
	byEvent := map[string]any{}
	for ev, cmd := range cmds {
		cmd = strings.ReplaceAll(cmd, "LOG/", dir+"/")
		byEvent[string(ev)] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	js, _ := json.Marshal(map[string]any{"hooks": byEvent})
	if err := os.WriteFile(filepath.Join(dir, "hooks.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	set := hooks.Discover(hooks.Locations{Cwd: dir, GroveHome: dir}, hooks.State{})
	if len(set.Warnings) > 0 {
		t.Fatal(set.Warnings)
	}
	r := hooks.NewRunner(set.Active(true), hooks.Options{Env: func() []string { return []string{"PATH=" + os.Getenv("PATH")} }})
	t.Cleanup(r.Close)
	return r, dir
}

// A whole tree with hooks: a blocking PreToolUse stops the call and the
// model reads why; PostToolUse fires once per call that ran;
// SubagentStart/Stop fire for the child in the parent's name; a Stop hook
// sends the turn on once; UserPromptSubmit's output reaches the model.
func TestHooksInTheTurnLoop(t *testing.T) {
	r, dir := hooksFor(t, map[hooks.Event]string{
		hooks.PreToolUse:       `input=$(cat); case "$input" in *"rm -rf"*) echo "no rm -rf here" >&2; exit 2;; esac`,
		hooks.PostToolUse:      `cat >> LOG/post.log; echo >> LOG/post.log`,
		hooks.SubagentStart:    `cat > LOG/sub_start.json`,
		hooks.SubagentStop:     `cat > LOG/sub_stop.json`,
		hooks.Stop:             `cat > /dev/null; [ -f LOG/stopped ] && exit 0; touch LOG/stopped; echo '{"decision":"block","reason":"also say bye"}'`,
		hooks.UserPromptSubmit: `cat > /dev/null; [ -f LOG/prompted ] || { touch LOG/prompted; echo "context: this project indents with tabs"; }`,
	})

	var sawContext bool
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.prompt == "also say bye" {
				return text("bye"), nil
			}
			for _, it := range tn.req.Items {
				if strings.Contains(it.Content, "indents with tabs") {
					sawContext = true
				}
			}
			switch tn.rounds {
			case 0:
				return calls(
					toolCall("c1", "exec_command", map[string]any{"cmd": "rm -rf /tmp/nothing-here"}),
					// read_file, not a command: the test does not depend on the machine's login shell.
					toolCall("c2", "read_file", map[string]any{"path": "hi.txt"}),
					toolCall("s1", "spawn_agent", map[string]any{"agent_type": "worker", "message": "look around"}),
				), nil
			case 1:
				id := spawnedID(t, tn.output("s1"))
				return calls(toolCall("w1", "wait", map[string]any{"ids": []string{string(id)}})), nil
			}
			return text("done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			return text("child result"), nil
		},
	}, func(o *Options) { o.Hooks = r })
	if err := os.WriteFile(filepath.Join(env.cwd, "hi.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("go")
	st := env.rootFinal(1)
	if st.Kind != protocol.StatusCompleted || st.Message != "bye" {
		t.Fatalf("final %+v (the Stop hook should have sent the turn on)", st)
	}
	if got, want := env.toolOutput("c1").Output, "Command blocked by PreToolUse hook: no rm -rf here. Command: rm -rf /tmp/nothing-here"; got != want {
		t.Errorf("blocked call output %q, want %q", got, want)
	}
	if !strings.Contains(env.toolOutput("c2").Output, "hi") {
		t.Errorf("c2 output %q", env.toolOutput("c2").Output)
	}
	if !sawContext {
		t.Error("UserPromptSubmit context did not reach the model")
	}
	// PostToolUse: once for each call that ran (c2, s1, w1), never for c1.
	post, _ := os.ReadFile(filepath.Join(dir, "post.log"))
	for id, want := range map[string]int{"c1": 0, "c2": 1, "s1": 1, "w1": 1} {
		if n := strings.Count(string(post), `"tool_use_id":"`+id+`"`); n != want {
			t.Errorf("PostToolUse for %s fired %d times, want %d", id, n, want)
		}
	}
	var start, stop map[string]any
	for name, into := range map[string]*map[string]any{"sub_start.json": &start, "sub_stop.json": &stop} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	child := spawnedID(t, env.toolOutput("s1").Output)
	if start["agent_id"] != string(child) || start["agent_type"] != "worker" || start["session_id"] != string(env.root) {
		t.Errorf("SubagentStart stdin %v (child %s, root %s)", start, child, env.root)
	}
	if stop["agent_id"] != string(child) || stop["agent_status"] != "completed" || stop["last_assistant_message"] != "child result" {
		t.Errorf("SubagentStop stdin %v", stop)
	}
}

// PreCompact and PostCompact fire around a compaction with Codex's
// fields and the trigger.
func TestCompactHooks(t *testing.T) {
	r, dir := hooksFor(t, map[hooks.Event]string{
		hooks.PreCompact:  `cat > LOG/pre.json`,
		hooks.PostCompact: `cat > LOG/post.json`,
	})
	p := newCompactingProvider(t)
	env := newEnv(t, nil, func(o *Options) { o.Client = p.client(t); o.Hooks = r })
	env.send("remember this")
	env.rootFinal(1) // rootFinal(0) is the idle root before any turn
	if err := env.e.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	for _, name := range []string{"pre.json", "post.json"} {
		// PostCompact runs after the compaction event: wait for its file.
		var b []byte
		var err error
		testkit.Eventually(t, name+" written by its hook", func() bool {
			b, err = os.ReadFile(filepath.Join(dir, name))
			return err == nil && json.Valid(b)
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var in map[string]any
		if err := json.Unmarshal(b, &in); err != nil || in["trigger"] != "manual" || in["session_id"] != string(env.root) {
			t.Errorf("%s stdin %s (%v)", name, b, err)
		}
		if _, has := in["permission_mode"]; has {
			t.Errorf("%s carries permission_mode, which Codex's compact events do not", name)
		}
	}
}
