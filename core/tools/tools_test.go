package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}

func coreRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := RegisterCore(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func testEnv(t *testing.T) *Env {
	t.Helper()
	return &Env{Cwd: t.TempDir(), Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, ApprovalPolicy: protocol.ApprovalOnRequest}
}

func run(t *testing.T, r *Registry, env *Env, name string, args any) Result {
	t.Helper()
	b, _ := json.Marshal(args)
	if s, ok := args.(string); ok {
		b = []byte(s)
	}
	return r.Run(context.Background(), env, name, b)
}

func TestRegistryValidationNamesTheField(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"exec_command", `{"cmd": 42}`, `field "cmd"`},
		{"exec_command", `{}`, "missing property 'cmd'"},
		{"exec_command", `{"cmd":"ls","timeout_ms":"soon"}`, `field "timeout_ms"`},
		{"exec_command", `{"cmd":"ls","bogus":1}`, "bogus"},
		{"update_plan", `{"plan":[{"step":"a","status":"maybe"}]}`, `field "plan/0/status"`},
		{"read_file", `{"path": "x"`, "not valid JSON"},
		{"nope", `{}`, `unknown tool "nope"`},
	} {
		res := r.Run(context.Background(), env, tc.tool, json.RawMessage(tc.args))
		if !res.IsError || !strings.Contains(res.Output, tc.want) {
			t.Errorf("%s %s: want error with %q, got %q", tc.tool, tc.args, tc.want, res.Output)
		}
	}
	if res := r.RunAllowed(context.Background(), env, "exec_command", json.RawMessage(`{"cmd":"true"}`), func(string) bool { return false }); !res.IsError || !strings.Contains(res.Output, "not available to this agent") {
		t.Errorf("policy refusal: %q", res.Output)
	}
	if err := r.Register(NewReadFile()); err == nil {
		t.Error("duplicate registration accepted")
	}
}

func TestPolicy(t *testing.T) {
	for _, tc := range []struct {
		allow, deny []string
		name        string
		want        bool
	}{
		{nil, nil, "anything", true},
		{[]string{"read_file"}, nil, "read_file", true},
		{[]string{"read_file"}, nil, "exec_command", false},
		{[]string{"list_*"}, nil, "list_agents", true},
		{[]string{"list_?ir"}, nil, "list_dir", true},
		{[]string{"*"}, []string{"exec_*"}, "exec_command", false},
		{nil, []string{"spawn_agent"}, "spawn_agent", false},
		{nil, []string{"spawn_agent"}, "wait", true},
		{[]string{"Read_file"}, nil, "read_file", false},
		{[]string{"apply_patch"}, []string{"apply_patch"}, "apply_patch", false},
	} {
		if got := (Policy{Allow: tc.allow, Deny: tc.deny}).Allowed(tc.name); got != tc.want {
			t.Errorf("allow %v deny %v %s: %v", tc.allow, tc.deny, tc.name, got)
		}
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadListGrep(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "a.go", "package a\n\nfunc A() {}\nfunc B() {}\n")
	write(t, env.Cwd, "sub/b.go", "package sub\nfunc C() {}\n")
	write(t, env.Cwd, "sub/notes.txt", "func not go\n")
	write(t, env.Cwd, ".git/config", "func hidden\n")
	write(t, env.Cwd, "bin.dat", "func\x00binary")
	if res := run(t, r, env, "read_file", map[string]any{"path": "a.go", "offset": 3, "limit": 1}); res.IsError || res.Output != "L3: func A() {}\n[… 1 more lines; continue with offset 4]\n" {
		t.Errorf("read_file: %q", res.Output)
	}
	for args, want := range map[string]string{`{"path":"missing.go"}`: "no such file", `{"path":"sub"}`: "list_dir", `{"path":"a.go","offset":99}`: "4 lines", `{"path":"bin.dat"}`: "binary"} {
		if res := run(t, r, env, "read_file", args); !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("read_file %s: %q", args, res.Output)
		}
	}
	res := run(t, r, env, "list_dir", map[string]any{"path": "."})
	if res.IsError || !strings.Contains(res.Output, "sub/\n    b.go") && !strings.Contains(res.Output, "sub/\n  b.go") || strings.Contains(res.Output, ".git") {
		t.Errorf("list_dir: %q", res.Output)
	}
	res = run(t, r, env, "grep_files", map[string]any{"pattern": "^func ", "include": "**/*.go"})
	if res.IsError || res.Output != "a.go:3: func A() {}\na.go:4: func B() {}\nsub/b.go:2: func C() {}\n" {
		t.Errorf("grep_files: %q", res.Output)
	}
	res = run(t, r, env, "grep_files", map[string]any{"pattern": "func", "limit": 1})
	if !strings.Contains(res.Output, "more matches not shown") {
		t.Errorf("grep limit: %q", res.Output)
	}
	if res := run(t, r, env, "grep_files", map[string]any{"pattern": "("}); !res.IsError || !strings.Contains(res.Output, "invalid pattern") {
		t.Errorf("bad regex: %q", res.Output)
	}
}

func TestUpdatePlan(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	var got *protocol.Plan
	env.Emit = func(ev protocol.Event) { got = ev.Plan }
	res := run(t, r, env, "update_plan", map[string]any{"plan": []map[string]string{{"step": "a", "status": "completed"}, {"step": "b", "status": "in_progress"}}})
	if res.IsError || got == nil || len(got.Steps) != 2 || res.Plan == nil {
		t.Fatalf("plan: %+v %+v", res, got)
	}
	res = run(t, r, env, "update_plan", map[string]any{"plan": []map[string]string{{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}}})
	if !res.IsError || !strings.Contains(res.Output, "at most one") {
		t.Fatalf("two in progress: %q", res.Output)
	}
}
