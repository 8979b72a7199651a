package tools

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// fakeSource is a run-time tool source that counts the starts it was asked for.
type fakeSource struct {
	tools  []Tool
	starts atomic.Int32
}

func (f *fakeSource) Tools(_ context.Context, env *Env) []Tool {
	if env != nil {
		f.starts.Add(1)
	}
	return f.tools
}

type fakeTool struct {
	name     string
	readOnly bool
}

func (t *fakeTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: t.name, Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
}
func (t *fakeTool) Run(context.Context, *Env, json.RawMessage) Result {
	return Result{Output: t.name + " ran"}
}
func (t *fakeTool) AvailableIn(m protocol.SandboxMode) bool {
	return m != protocol.SandboxReadOnly || t.readOnly
}

func TestToolSourceInRegistry(t *testing.T) {
	r := NewRegistry()
	if err := RegisterCore(r); err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{tools: []Tool{&fakeTool{name: "mcp__s__read", readOnly: true}, &fakeTool{name: "mcp__s__write"}}}
	r.AddSource(src)
	env := &Env{Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}}

	names := func(specs []model.ToolSpec) (out []string) {
		for _, s := range specs {
			out = append(out, s.Name)
		}
		return out
	}
	// Plain Specs (thread creation) never starts a source.
	r.Specs(nil)
	if src.starts.Load() != 0 {
		t.Fatal("Specs started the source")
	}
	got := names(r.SpecsFor(context.Background(), env, Policy{Deny: []string{"mcp__s__w*"}}.Allowed))
	if !slices.Contains(got, "exec_command") || !slices.Contains(got, "mcp__s__read") || slices.Contains(got, "mcp__s__write") || src.starts.Load() != 1 {
		t.Fatalf("SpecsFor = %v (starts %d)", got, src.starts.Load())
	}
	ro := &Env{Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}}
	if got := names(r.SpecsFor(context.Background(), ro, nil)); slices.Contains(got, "mcp__s__write") {
		t.Fatalf("read-only SpecsFor offers a writing tool: %v", got)
	}
	if res := r.Run(context.Background(), env, "mcp__s__write", json.RawMessage(`{"n":1}`)); res.IsError || res.Output != "mcp__s__write ran" {
		t.Fatalf("run = %+v", res)
	}
	if res := r.Run(context.Background(), env, "mcp__s__write", json.RawMessage(`{"n":"x"}`)); !res.IsError || !strings.Contains(res.Output, "invalid arguments") {
		t.Fatalf("schema not applied to a source tool: %+v", res)
	}
	if res := r.Run(context.Background(), ro, "mcp__s__write", json.RawMessage(`{"n":1}`)); !res.IsError || !strings.Contains(res.Output, "read-only") {
		t.Fatalf("read-only run = %+v", res)
	}
	if !slices.Contains(r.Names(), "mcp__s__read") {
		t.Fatalf("Names = %v", r.Names())
	}
	if _, ok := r.Get("mcp__s__read"); !ok {
		t.Fatal("Get misses a source tool")
	}
}

// schemaTool is a source tool whose schema is given as text.
type schemaTool struct{ schema string }

func (t *schemaTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "mcp__s__ref", Parameters: json.RawMessage(t.schema)}
}
func (t *schemaTool) Run(context.Context, *Env, json.RawMessage) Result { return Result{Output: "ran"} }

func TestSourceSchemaNeverLoadsExternalRefs(t *testing.T) {
	dir := t.TempDir()
	secret := dir + "/secret.json"
	if err := os.WriteFile(secret, []byte(`{"type":"string","description":"SECRET-CONTENT"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	r.AddSource(&fakeSource{tools: []Tool{&schemaTool{schema: `{"type":"object","properties":{"a":{"$ref":"file://` + secret + `"}}}`}}})
	res := r.Run(context.Background(), &Env{}, "mcp__s__ref", json.RawMessage(`{"a":5}`))
	// The $ref is not followed: the server validates, grove passes the call on.
	if res.IsError || strings.Contains(res.Output, "SECRET") {
		t.Fatalf("run = %+v", res)
	}
}

// A run-time tool's $refs within its own schema are followed: grove
// validates the call and says which field is wrong.
func TestSourceToolLocalRefValidated(t *testing.T) {
	r := NewRegistry()
	r.AddSource(&fakeSource{tools: []Tool{&schemaTool{schema: `{"type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}},"required":["a"]}`}}})
	res := r.Run(context.Background(), &Env{}, "mcp__s__ref", json.RawMessage(`{"a":"five"}`))
	if !res.IsError || !strings.Contains(res.Output, `field "a": expected integer, got string`) {
		t.Fatalf("run = %+v", res)
	}
	if res := r.Run(context.Background(), &Env{}, "mcp__s__ref", json.RawMessage(`{"a":5}`)); res.IsError {
		t.Fatalf("valid call refused: %+v", res)
	}
}

// A run-time schema whose $refs loop in place would overflow the stack in
// the validator: it is not compiled, and the server validates instead.
func TestSourceToolRefCycleDoesNotCrash(t *testing.T) {
	r := NewRegistry()
	r.AddSource(&fakeSource{tools: []Tool{&schemaTool{schema: `{"type":"object","$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`}}})
	if res := r.Run(context.Background(), &Env{}, "mcp__s__ref", json.RawMessage(`{"x":1}`)); res.IsError || res.Output != "ran" {
		t.Fatalf("run = %+v", res)
	}
}
