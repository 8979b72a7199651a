package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// devkitStandIn replaces devkit's hooks/codex-hook.sh (which dispatches to
// its own scripts) with one that does a known thing per check, so the
// unchanged hooks.json can be run here.
const devkitStandIn = `#!/bin/bash
input=$(cat)
dir="$(git rev-parse --show-toplevel)"
case "$1" in
safety-check.sh)
  case "$input" in *"rm -rf"*) echo "BLOCKED: rm -rf is not allowed" >&2; exit 2;; esac ;;
audit-trail.sh) printf '%s' "$input" > "$dir/audit.json" ;;
post-validate.sh) printf '%s\n' "$input" >> "$dir/post.log" ;;
stop-gate.sh)
  printf '%s' "$input" > "$dir/stop.json"
  [ -f "$dir/tests-passed" ] || echo '{"decision":"block","reason":"run the tests first"}' ;;
esac
exit 0
`

const permissionStandIn = `#!/bin/bash
cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no escalation here"}}}'
`

// devkitRunner sets up a git repository with devkit's hooks.json and the
// stand-in scripts, and a runner for all its hooks.
func devkitRunner(t *testing.T) (*Runner, string) {
	t.Helper()
	root := project(t, map[string]string{
		".codex/hooks.json":               fixture(t, "public/devkit.hooks.json"),
		"hooks/codex-hook.sh":             devkitStandIn,
		"hooks/codex-permission-guard.sh": permissionStandIn,
	})
	os.RemoveAll(filepath.Join(root, ".git"))
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	st, _ := LoadState(trustedProject(t, root))
	set := Discover(Locations{Cwd: root}, st)
	r := NewRunner(set.Active(true), Options{Env: testEnv, ProjectDir: root})
	t.Cleanup(r.Close)
	return r, root
}

func testContext(root string) Context {
	return Context{SessionID: "019a0000-0000-7000-8000-000000000001", TurnID: "turn-1", Cwd: root, Model: "gpt-5", PermissionMode: "default"}
}

func TestPreToolUseBlocksWithCodexWording(t *testing.T) {
	r, root := devkitRunner(t)
	ctx := context.Background()
	tool := ToolFor("exec_command", "call_1", json.RawMessage(`{"cmd":"rm -rf build","workdir":"."}`))
	o := r.PreToolUse(ctx, testContext(root), tool)
	if !o.Block || o.Reason != "BLOCKED: rm -rf is not allowed" {
		t.Fatalf("outcome %+v", o)
	}
	if got, want := BlockedOutput(tool, o.Reason), "Command blocked by PreToolUse hook: BLOCKED: rm -rf is not allowed. Command: rm -rf build"; got != want {
		t.Errorf("model reads %q, want %q", got, want)
	}
	// The audit hook (another group, same event) got Codex's fields.
	var in map[string]any
	data, err := os.ReadFile(filepath.Join(root, "audit.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"cwd", "hook_event_name", "model", "permission_mode", "session_id", "tool_input", "tool_name", "tool_use_id", "transcript_path", "turn_id"}
	if !slices.Equal(keys, want) {
		t.Errorf("stdin fields %v, want %v", keys, want)
	}
	if in["tool_name"] != "Bash" || in["tool_use_id"] != "call_1" || in["transcript_path"] != nil {
		t.Errorf("stdin %s", data)
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "rm -rf build" || len(ti) != 1 {
		t.Errorf("tool_input %v, want {command}", in["tool_input"])
	}

	ok := r.PreToolUse(ctx, testContext(root), ToolFor("exec_command", "call_2", json.RawMessage(`{"cmd":"ls"}`)))
	if ok.Block || len(ok.Notes) != 0 || ok.Ran != 4 {
		t.Errorf("ls: %+v (want 4 hooks run, none blocking)", ok)
	}
	// apply_patch answers to the Edit|Write|apply_patch groups and "*".
	patch := r.PreToolUse(ctx, testContext(root), ToolFor("apply_patch", "call_3", json.RawMessage(`{"input":"*** Begin Patch\n*** End Patch"}`)))
	if patch.Ran != 3 || patch.Block {
		t.Errorf("apply_patch: %+v (want 3 hooks)", patch)
	}
}

func TestPostToolUseOncePerCallAndStop(t *testing.T) {
	r, root := devkitRunner(t)
	ctx := context.Background()
	c := testContext(root)
	for i, cmd := range []string{"ls", "pwd"} {
		tool := ToolFor("exec_command", "call_"+cmd, json.RawMessage(`{"cmd":"`+cmd+`"}`))
		r.PostToolUse(ctx, c, tool, map[string]any{"output": "x", "exit_code": 0})
		data, _ := os.ReadFile(filepath.Join(root, "post.log"))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != i+1 {
			t.Fatalf("after %d calls post.log has %d lines", i+1, len(lines))
		}
		validate(t, "post-tool-use", []byte(lines[i]))
	}
	o := r.Stop(ctx, c, "done", false)
	if !o.Block || o.Reason != "run the tests first" {
		t.Errorf("stop: %+v", o)
	}
	stdin, _ := os.ReadFile(filepath.Join(root, "stop.json"))
	validate(t, "stop", stdin)
	os.WriteFile(filepath.Join(root, "tests-passed"), nil, 0o644)
	if o := r.Stop(ctx, c, "done", true); o.Block {
		t.Errorf("stop after tests: %+v", o)
	}
	pr := r.PermissionRequest(ctx, c, ToolFor("exec_command", "call_9", json.RawMessage(`{"cmd":"curl x"}`)))
	if pr.Decision != "deny" || pr.Reason != "no escalation here" {
		t.Errorf("permission request: %+v", pr)
	}
}

// captureAll declares, for every event, a hook that saves its stdin.
func captureAll(t *testing.T) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"hooks": {`)
	for i, ev := range Events {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + string(ev) + `": [{"hooks": [{"type": "command", "command": "cat > ` + filepath.Join(dir, string(ev)) + `.json"}]}]`)
	}
	b.WriteString("}}")
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	set := Discover(Locations{Cwd: t.TempDir(), GroveHome: home}, State{})
	r := NewRunner(set.Active(true), Options{Env: testEnv})
	t.Cleanup(r.Close)
	return r, dir
}

// Every event's stdin validates against Codex's generated schema.
func TestStdinMatchesCodexSchemas(t *testing.T) {
	r, dir := captureAll(t)
	ctx := context.Background()
	c := testContext(t.TempDir())
	c.TranscriptPath = "/tmp/rollout.jsonl"
	child := Subagent{ID: "019a-child", Type: "explorer", TranscriptPath: "/tmp/child.jsonl", Status: "completed", LastMessage: "found it"}
	r.UserPromptSubmit(ctx, c, "hello")
	r.Stop(ctx, c, "", false)
	r.SubagentStart(ctx, c, child)
	r.SubagentStop(ctx, c, child, false)
	r.PreCompact(ctx, c, "auto")
	r.PostCompact(ctx, c, "manual")
	r.PostToolUse(ctx, c, ToolFor("read_file", "call_1", json.RawMessage(`{"path":"a.go"}`)), "package a")
	for schema, ev := range map[string]Event{
		"user-prompt-submit": UserPromptSubmit, "stop": Stop, "subagent-start": SubagentStart,
		"subagent-stop": SubagentStop, "pre-compact": PreCompact, "post-compact": PostCompact,
		"post-tool-use": PostToolUse,
	} {
		data, err := os.ReadFile(filepath.Join(dir, string(ev)+".json"))
		if err != nil {
			t.Fatalf("%s hook did not run: %v", ev, err)
		}
		if ev == SubagentStop {
			// agent_status is grove's one addition (the child's final status).
			var m map[string]any
			json.Unmarshal(data, &m)
			if m["agent_status"] != "completed" {
				t.Errorf("SubagentStop agent_status = %v", m["agent_status"])
			}
			delete(m, "agent_status")
			data, _ = json.Marshal(m)
		}
		validate(t, schema, data)
	}
}
