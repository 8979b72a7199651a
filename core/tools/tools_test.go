package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if marker := os.Getenv(sessionChildEnv); marker != "" {
		runSessionChild(marker)
	}
	goleak.VerifyTestMain(m)
}

func coreRegistry(t testing.TB) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := RegisterCore(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func testEnv(t *testing.T) *Env {
	t.Helper()
	return &Env{Cwd: t.TempDir(), Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, ApprovalPolicy: protocol.ApprovalOnRequest}
}

// run calls a tool through the registry; args is marshalled unless it is
// a string, which is sent as raw JSON.
func run(t testing.TB, r *Registry, env *Env, name string, args any) Result {
	t.Helper()
	b, _ := json.Marshal(args)
	if s, ok := args.(string); ok {
		b = []byte(s)
	}
	return r.Run(context.Background(), env, name, b)
}

func write(t testing.TB, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns a file's content, or "<missing>".
func read(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

func TestRegistryValidationMessages(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"wrong type", "exec_command", `{"cmd":"ls","timeout_ms":"soon"}`,
			`invalid arguments for exec_command: field "timeout_ms": expected integer, got string`},
		{"wrong type string", "exec_command", `{"cmd": 42}`,
			`invalid arguments for exec_command: field "cmd": expected string, got number`},
		{"missing required", "exec_command", `{}`,
			`invalid arguments for exec_command: field "cmd" is required (expected string)`},
		{"empty args are {}", "exec_command", ``,
			`invalid arguments for exec_command: field "cmd" is required (expected string)`},
		{"null args are {}", "exec_command", `null`,
			`invalid arguments for exec_command: field "cmd" is required (expected string)`},
		{"unknown field", "exec_command", `{"cmd":"ls","bogus":1}`,
			`invalid arguments for exec_command: unknown field "bogus" (allowed fields: cmd, justification, login, max_output_tokens, prefix_rule, sandbox_permissions, shell, timeout_ms, tty, workdir, yield_time_ms)`},
		{"below minimum", "read_file", `{"path":"x","offset":0}`,
			`invalid arguments for read_file: field "offset": expected a number >= 1, got 0`},
		{"nested enum", "update_plan", `{"plan":[{"step":"a","status":"maybe"}]}`,
			`invalid arguments for update_plan: field "plan/0/status": expected one of "pending", "in_progress", "completed", got "maybe"`},
		{"nested required", "update_plan", `{"plan":[{"status":"pending"}]}`,
			`invalid arguments for update_plan: field "plan/0/step" is required (expected string)`},
		{"anyOf types", "grep_files", `{"pattern":"x","include":5}`,
			`invalid arguments for grep_files: field "include": expected string or array, got number`},
		{"anyOf deeper", "grep_files", `{"pattern":"x","include":[5]}`,
			`invalid arguments for grep_files: field "include/0": expected string, got number`},
		{"two problems", "read_file", `{"path":1,"limit":"all"}`,
			`invalid arguments for read_file: field "limit": expected integer, got string; field "path": expected string, got number`},
		{"not an object", "read_file", `["a.go"]`,
			`invalid arguments for read_file: arguments must be a JSON object, got array`},
		{"bad JSON", "read_file", `{"path": "x"`,
			`invalid arguments for read_file: not valid JSON (unexpected end of JSON input, at byte 12); send one JSON object`},
		{"bad JSON multi-line", "read_file", "{\n  \"path\": \"x\",\n  ]",
			`invalid arguments for read_file: not valid JSON (invalid character ']' looking for beginning of object key string, at line 3 column 3); send one JSON object`},
		{"trailing data", "read_file", `{"path":"x"} {}`,
			`invalid arguments for read_file: not valid JSON (invalid character '{' after top-level value, at byte 14); send one JSON object`},
		{"unknown tool", "nope", `{}`,
			`unknown tool "nope"; available tools: apply_patch, exec_command, grep_files, list_dir, read_file, request_user_input, update_plan, view_image, write_stdin`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := r.Run(context.Background(), env, tc.tool, json.RawMessage(tc.args))
			if !res.IsError || res.Output != tc.want {
				t.Errorf("got  %q\nwant %q", res.Output, tc.want)
			}
		})
	}
}

// recorder is a tool that records the arguments it was given.
type recorder struct {
	name string
	mu   sync.Mutex
	got  []string
}

func (x *recorder) Spec() model.ToolSpec {
	return model.ToolSpec{Name: x.name, Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}
}

func (x *recorder) Run(_ context.Context, _ *Env, args json.RawMessage) Result {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.got = append(x.got, string(args))
	return Result{Output: "ok " + string(args)}
}

func TestRegistryRunNormalisesArguments(t *testing.T) {
	r := NewRegistry()
	rec := &recorder{name: "rec"}
	if err := r.Register(rec); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{``, `null`, `  {"n": 1}  `, `"{\"n\": 2}"`} {
		if res := r.Run(context.Background(), nil, "rec", json.RawMessage(args)); res.IsError || res.Duration <= 0 {
			t.Fatalf("%q: %+v", args, res)
		}
	}
	want := []string{`{}`, `{}`, `{"n": 1}`, `{"n": 2}`}
	if !slices.Equal(rec.got, want) {
		t.Errorf("handler saw %q, want %q", rec.got, want)
	}
}

func TestRegistryRegistration(t *testing.T) {
	r := coreRegistry(t)
	if err := r.Register(NewReadFile()); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate registration: %v", err)
	}
	if err := r.Register(&recorder{name: ""}); err == nil {
		t.Error("empty name accepted")
	}
	// A broken schema is compiled on first use (start-up compiles none):
	// CheckSchemas reports it, and a call gets a clear error, never a run.
	bad := NewRegistry()
	if err := bad.Register(badSchema{}); err != nil {
		t.Fatal(err)
	}
	if err := bad.CheckSchemas(); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("broken schema: %v", err)
	}
	if res := bad.Run(context.Background(), nil, "bad", json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Output, "cannot check its arguments") {
		t.Errorf("call with a broken schema: %+v", res)
	}
	if err := r.CheckSchemas(); err != nil {
		t.Errorf("built-in tools' schemas: %v", err)
	}
	if got, want := r.Names(), []string{"apply_patch", "exec_command", "grep_files", "list_dir", "read_file", "request_user_input", "update_plan", "view_image", "write_stdin"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v", got)
	}
	var specs []string
	for _, s := range r.Specs(nil) {
		specs = append(specs, s.Name)
		if s.Description == "" || !json.Valid(s.Parameters) {
			t.Errorf("%s: empty description or invalid schema", s.Name)
		}
	}
	if want := []string{"exec_command", "write_stdin", "apply_patch", "read_file", "list_dir", "grep_files", "update_plan", "view_image", "request_user_input"}; !slices.Equal(specs, want) {
		t.Errorf("Specs order = %v, want registration order %v", specs, want)
	}
	only := r.Specs(Policy{Allow: []string{"read_file", "list_*"}}.Allowed)
	if len(only) != 2 || only[0].Name != "read_file" || only[1].Name != "list_dir" {
		t.Errorf("filtered specs = %v", only)
	}
	if _, ok := r.Get("apply_patch"); !ok {
		t.Error("Get apply_patch")
	}
	if _, ok := r.Get("nope"); ok {
		t.Error("Get nope")
	}
	if !strings.Contains(r.Specs(nil)[2].Description, "*** Update File: ") {
		t.Error("apply_patch description lacks the grammar")
	}
}

type badSchema struct{}

func (badSchema) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "bad", Parameters: json.RawMessage(`{"type": 12}`)}
}
func (badSchema) Run(context.Context, *Env, json.RawMessage) Result { return Result{} }

func TestRunAllowed(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "a.txt", "hi\n")
	allow := Policy{Allow: []string{"read_file", "list_dir"}}.Allowed
	res := r.RunAllowed(context.Background(), env, "exec_command", json.RawMessage(`{"cmd":"true"}`), allow)
	if want := `tool "exec_command" is not available to this agent (blocked by its template's allow_list/deny_list)`; !res.IsError || res.Output != want {
		t.Errorf("blocked: %q", res.Output)
	}
	res = r.RunAllowed(context.Background(), env, "nope", nil, allow)
	if want := `unknown tool "nope"; available tools: list_dir, read_file`; res.Output != want {
		t.Errorf("unknown under policy: %q", res.Output)
	}
	if res := r.RunAllowed(context.Background(), env, "read_file", json.RawMessage(`{"path":"a.txt"}`), allow); res.IsError || res.Output != "L1: hi\n" {
		t.Errorf("allowed: %q", res.Output)
	}
	// Run itself applies no policy.
	if res := r.Run(context.Background(), env, "update_plan", json.RawMessage(`{"plan":[]}`)); res.IsError {
		t.Errorf("Run: %q", res.Output)
	}
}

func TestRegistryConcurrentRun(t *testing.T) {
	r := NewRegistry()
	rec := &recorder{name: "rec"}
	if err := r.Register(rec); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 20 {
				args := fmt.Sprintf(`{"n":%d}`, i*100+j)
				if res := r.Run(context.Background(), nil, "rec", json.RawMessage(args)); res.Output != "ok "+args {
					t.Errorf("got %q for %s", res.Output, args)
				}
				_ = r.Specs(nil)
			}
		})
	}
	// Registration may happen while calls run.
	for i := range 10 {
		if err := r.Register(&recorder{name: fmt.Sprintf("extra%d", i)}); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	if len(rec.got) != 16*20 {
		t.Errorf("%d calls recorded", len(rec.got))
	}
}

func TestPolicy(t *testing.T) {
	for _, tc := range []struct {
		name        string
		allow, deny []string
		tool        string
		want        bool
	}{
		{"no policy allows all", nil, nil, "anything", true},
		{"empty lists are no policy", []string{}, []string{}, "exec_command", true},
		{"exact allow", []string{"read_file"}, nil, "read_file", true},
		{"allow-only excludes others", []string{"read_file"}, nil, "exec_command", false},
		{"glob *", []string{"list_*"}, nil, "list_agents", true},
		{"glob * needs the prefix", []string{"list_*"}, nil, "read_file", false},
		{"glob ?", []string{"list_?ir"}, nil, "list_dir", true},
		{"glob ? is one character", []string{"list_?"}, nil, "list_dir", false},
		{"glob class", []string{"[rw]ait"}, nil, "wait", true},
		{"deny wins over allow *", []string{"*"}, []string{"exec_*"}, "exec_command", false},
		{"deny wins over exact allow", []string{"apply_patch"}, []string{"apply_patch"}, "apply_patch", false},
		{"deny-only", nil, []string{"spawn_agent"}, "spawn_agent", false},
		{"deny-only allows the rest", nil, []string{"spawn_agent"}, "wait", true},
		{"case-sensitive allow", []string{"Read_file"}, nil, "read_file", false},
		{"case-sensitive deny", nil, []string{"EXEC_*"}, "exec_command", true},
		{"malformed glob matches itself", []string{"[bad"}, nil, "[bad", true},
		{"malformed glob matches nothing else", []string{"[bad"}, nil, "bad", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Policy{Allow: tc.allow, Deny: tc.deny}).Allowed(tc.tool); got != tc.want {
				t.Errorf("allow %q deny %q: Allowed(%q) = %v, want %v", tc.allow, tc.deny, tc.tool, got, tc.want)
			}
		})
	}
}

// A procfs file that stats as regular but blocks on read (/proc/kmsg)
// must not hang read_file.
func TestReadFileDoesNotBlockOnProcfs(t *testing.T) {
	if f, err := os.Open("/proc/kmsg"); err != nil {
		t.Skipf("/proc/kmsg not readable here: %v", err)
	} else {
		_ = f.Close()
	}
	r := coreRegistry(t)
	env := testEnv(t)
	done := make(chan Result, 1)
	go func() { done <- run(t, r, env, "read_file", map[string]any{"path": "/proc/kmsg"}) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // bounds a hang; it times nothing
		t.Fatal("read_file blocked on /proc/kmsg")
	}
}
