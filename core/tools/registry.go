package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/model"
)

// Registry maps tool names to handlers and validates every call's
// arguments against the tool's JSON schema before the handler runs. It is
// safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	order []string // registration order, for Specs
	tools map[string]*entry
}

type entry struct {
	tool   Tool
	schema *schema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}}
}

// Register adds a tool, compiling its schema once. A second tool with the
// same name is an error.
func (r *Registry) Register(t Tool) error {
	spec := t.Spec()
	if spec.Name == "" {
		return errors.New("register tool: empty name")
	}
	params := spec.Parameters
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := decodeJSON(params)
	if err != nil {
		return fmt.Errorf("register tool %s: schema is not JSON: %w", spec.Name, err)
	}
	sch, err := compileSchema(doc, "#")
	if err != nil {
		return fmt.Errorf("register tool %s: compile schema: %w", spec.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[spec.Name]; dup {
		return fmt.Errorf("register tool %s: a tool with this name is already registered", spec.Name)
	}
	r.tools[spec.Name] = &entry{tool: t, schema: sch}
	r.order = append(r.order, spec.Name)
	return nil
}

// Get returns a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Names lists the registered tools, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := append([]string(nil), r.order...)
	sort.Strings(out)
	return out
}

// Specs returns the specs of the allowed tools in registration order
// (nil allow = all).
func (r *Registry) Specs(allow func(name string) bool) []model.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]model.ToolSpec, 0, len(r.order))
	for _, n := range r.order {
		if allow == nil || allow(n) {
			out = append(out, r.tools[n].tool.Spec())
		}
	}
	return out
}

// Run validates args against the tool's schema and runs the tool. Empty
// or null arguments count as {}. Run applies no tool policy (the engine
// filters); see RunAllowed.
func (r *Registry) Run(ctx context.Context, env *Env, name string, args json.RawMessage) Result {
	return r.RunAllowed(ctx, env, name, args, nil)
}

// RunAllowed is Run behind a tool policy (nil allow = all): a tool the
// policy excludes is refused with a message the model can act on, and an
// unknown tool's error lists only the tools the policy allows.
func (r *Registry) RunAllowed(ctx context.Context, env *Env, name string, args json.RawMessage, allow func(string) bool) Result {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		var avail []string
		for _, n := range r.Names() {
			if allow == nil || allow(n) {
				avail = append(avail, n)
			}
		}
		return Errorf("unknown tool %q; available tools: %s", name, strings.Join(avail, ", "))
	}
	if allow != nil && !allow(name) {
		return Errorf("tool %q is not available to this agent (blocked by its template's allow_list/deny_list)", name)
	}
	args, err := e.validate(name, args)
	if err != nil {
		return Errorf("%v", err)
	}
	if env == nil {
		env = &Env{}
	}
	start := time.Now()
	res := e.tool.Run(ctx, env, args)
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	return res
}

// validate normalises empty arguments to {} and checks them against the
// schema, returning the arguments the handler should decode.
func (e *entry) validate(name string, args json.RawMessage) (json.RawMessage, error) {
	b := bytes.TrimSpace(args)
	if len(b) == 0 || string(b) == "null" {
		b = []byte("{}")
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("invalid arguments for %s: not valid JSON (%s); send one JSON object", name, jsonSyntaxError(b))
	}
	// Some models double-encode: a JSON string that holds the object.
	if b[0] == '"' {
		var inner string
		if json.Unmarshal(b, &inner) == nil {
			if in := bytes.TrimSpace([]byte(inner)); len(in) > 0 && in[0] == '{' && json.Valid(in) {
				b = in
			}
		}
	}
	inst, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %v", name, err)
	}
	if vs := e.schema.validate(inst, nil); len(vs) > 0 {
		return nil, fmt.Errorf("invalid arguments for %s: %s", name, describeViolations(vs))
	}
	return json.RawMessage(b), nil
}

// jsonSyntaxError says what is wrong with invalid JSON and where.
func jsonSyntaxError(b []byte) string {
	err := json.Unmarshal(b, new(any))
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		if err == nil {
			return "unexpected data"
		}
		return err.Error()
	}
	// Offset counts the bytes read, the offending one included.
	off := min(int(syn.Offset), len(b))
	at := max(off-1, 0)
	line := 1 + bytes.Count(b[:at], []byte("\n"))
	if line == 1 {
		return fmt.Sprintf("%v, at byte %d", syn, off)
	}
	return fmt.Sprintf("%v, at line %d column %d", syn, line, at-bytes.LastIndexByte(b[:at], '\n'))
}
