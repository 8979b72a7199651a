package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Registry maps tool names to handlers and validates every call's
// arguments against the tool's JSON schema before the handler runs. It is
// safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	order []string // registration order, for Specs
	tools map[string]*entry
	// sources contribute tools discovered at run time (MCP servers).
	sources []ToolSource
	// compiled caches the compiled schemas of source tools (by identity).
	compiledMu sync.Mutex
	compiled   map[Tool]*entry
}

// ToolSource contributes tools that are discovered at run time (MCP
// servers). Tools returns the source's current tools; with env non-nil the
// call comes from a thread about to use them, and the source may start
// first (lazily, bounded by its own timeouts and ctx), ask approvals and
// publish warnings through env. Its tools' names never collide with
// registered ones (they carry a prefix such as mcp__).
type ToolSource interface {
	Tools(ctx context.Context, env *Env) []Tool
}

// SandboxAware is implemented by tools that are only offered under some
// sandbox modes (an MCP tool not annotated read-only is hidden from
// read-only agents).
type SandboxAware interface {
	AvailableIn(mode protocol.SandboxMode) bool
}

// AddSource adds a run-time tool source; its tools follow the registered
// ones in Specs.
func (r *Registry) AddSource(s ToolSource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sources = append(r.sources, s)
}

// sourceTools lists the sources' tools (started ones only when env is nil).
func (r *Registry) sourceTools(ctx context.Context, env *Env) []Tool {
	r.mu.RLock()
	srcs := append([]ToolSource(nil), r.sources...)
	r.mu.RUnlock()
	var out []Tool
	for _, s := range srcs {
		out = append(out, s.Tools(ctx, env)...)
	}
	return out
}

// SpecsFor is Specs for a thread about to call the model: run-time sources
// start if they have not (see ToolSource), and tools that are not
// available under env.Sandbox are left out.
func (r *Registry) SpecsFor(ctx context.Context, env *Env, allow func(name string) bool) []model.ToolSpec {
	out := r.Specs(allow)
	for _, t := range r.sourceTools(ctx, env) {
		spec := t.Spec()
		if allow != nil && !allow(spec.Name) {
			continue
		}
		if sa, ok := t.(SandboxAware); ok && env != nil && !sa.AvailableIn(env.Sandbox.Mode) {
			continue
		}
		out = append(out, spec)
	}
	return out
}

type entry struct {
	tool   Tool
	schema *argSchema // nil: the tool's server validates (see compiledEntry)
	// compile, when set, makes schema on first use: a registered tool's
	// schema is compiled when it is first called, not at start-up (every
	// grove process registers every tool; most are never called).
	compile func() (*argSchema, error)
	once    sync.Once
	err     error
}

// compiled returns the entry's schema, compiling it on first use.
func (e *entry) compiled() (*argSchema, error) {
	if e.compile != nil {
		e.once.Do(func() { e.schema, e.err = e.compile() })
	}
	return e.schema, e.err
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}}
}

// Register adds a tool; its schema is compiled once, on first use (see
// CheckSchemas). A second tool with the same name is an error.
func (r *Registry) Register(t Tool) error {
	name := t.Spec().Name
	if name == "" {
		return errors.New("register tool: empty name")
	}
	e := &entry{tool: t}
	e.compile = func() (*argSchema, error) {
		c, err := compileEntry(t)
		if err != nil {
			return nil, err
		}
		return c.schema, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[name]; dup {
		return fmt.Errorf("register tool %s: a tool with this name is already registered", name)
	}
	r.tools[name] = e
	r.order = append(r.order, name)
	return nil
}

// compileEntry compiles a tool's parameter schema. $refs within the
// document resolve; an external one is a compile error (nothing is loaded).
func compileEntry(t Tool) (*entry, error) {
	spec := t.Spec()
	if spec.Name == "" {
		return nil, errors.New("register tool: empty name")
	}
	params := spec.Parameters
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	sch, err := compileSchema(params)
	if err != nil {
		return nil, fmt.Errorf("register tool %s: compile schema: %w", spec.Name, err)
	}
	return &entry{tool: t, schema: sch}, nil
}

// CheckSchemas compiles every registered tool's schema now (tests: a
// schema error must not wait for the first call to show).
func (r *Registry) CheckSchemas() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, n := range r.order {
		if _, err := r.tools[n].compiled(); err != nil {
			return err
		}
	}
	return nil
}

// Get returns a tool by name.
// Prewarm prepares the registered tools allow lets env's thread use that
// can be prepared (Prewarmer); it returns when they are ready.
func (r *Registry) Prewarm(env *Env, allow func(name string) bool) {
	r.mu.RLock()
	var ps []Prewarmer
	for _, n := range r.order {
		if p, ok := r.tools[n].tool.(Prewarmer); ok && (allow == nil || allow(n)) {
			ps = append(ps, p)
		}
	}
	r.mu.RUnlock()
	for _, p := range ps {
		p.Prewarm(env)
	}
}

func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		for _, t := range r.sourceTools(context.Background(), nil) {
			if t.Spec().Name == name {
				return t, true
			}
		}
		return nil, false
	}
	return e.tool, true
}

// Names lists the registered tools and those of started sources, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	out := append([]string(nil), r.order...)
	r.mu.RUnlock()
	for _, t := range r.sourceTools(context.Background(), nil) {
		out = append(out, t.Spec().Name)
	}
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
		if u, ok := r.tools[n].tool.(Unlisted); ok && u.Unlisted() {
			continue
		}
		if allow == nil || allow(n) {
			out = append(out, r.tools[n].tool.Spec())
		}
	}
	return out
}

// ArgErrorWording is a tool whose contract words a call that breaks its
// schema itself (seed 004's complete_task: "Output validation failed: …").
type ArgErrorWording interface {
	ArgError(err error) string
}

// Unlisted is a tool that is not offered to the model but still answers
// when called: a name an earlier release of a tool set used (Claude
// Code's LS, KillShell), which models trained on it may still call.
type Unlisted interface {
	Unlisted() bool
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
		e, ok = r.sourceEntry(ctx, env, name)
	}
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
		if w, ok := e.tool.(ArgErrorWording); ok {
			return Errorf("%s", w.ArgError(err))
		}
		return Errorf("%v", err)
	}
	if env == nil {
		env = &Env{}
	}
	start := time.Now()
	res := orchestrate(ctx, env, e.tool, args)
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	return res
}

// sourceEntry finds a run-time tool by name and compiles its schema for
// this call (sources change their tools at run time, so nothing is cached
// here). A schema that does not compile is validated by the server instead.
func (r *Registry) sourceEntry(ctx context.Context, env *Env, name string) (*entry, bool) {
	for _, t := range r.sourceTools(ctx, env) {
		if t.Spec().Name != name {
			continue
		}
		if sa, ok := t.(SandboxAware); ok && env != nil && !sa.AvailableIn(env.Sandbox.Mode) {
			return &entry{tool: refusedTool{t, env.Sandbox.Mode}}, true
		}
		return r.compiledEntry(t), true
	}
	return nil, false
}

// compiledEntry compiles a source tool's schema once per tool value; a
// schema that does not compile (an external $ref, an unsupported draft)
// is left to the server to validate.
func (r *Registry) compiledEntry(t Tool) *entry {
	cacheable := reflect.TypeOf(t).Comparable()
	if cacheable {
		r.compiledMu.Lock()
		e := r.compiled[t]
		r.compiledMu.Unlock()
		if e != nil {
			return e
		}
	}
	e, err := compileEntry(t)
	if err != nil {
		e = &entry{tool: t}
	}
	if cacheable {
		r.compiledMu.Lock()
		if r.compiled == nil || len(r.compiled) > 4096 { // tools replaced by list_changed age out
			r.compiled = map[Tool]*entry{}
		}
		r.compiled[t] = e
		r.compiledMu.Unlock()
	}
	return e
}

// refusedTool stands in for a tool the caller's sandbox does not offer.
type refusedTool struct {
	Tool
	mode protocol.SandboxMode
}

func (r refusedTool) Run(context.Context, *Env, json.RawMessage) Result {
	return Errorf("tool %q is not available under the %s sandbox (it is not annotated read-only)", r.Spec().Name, r.mode)
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
	b = dropHabitArgs(e.tool, b)
	inst, err := decodeArgs(b)
	if err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %v", name, err)
	}
	sch, err := e.compiled()
	if err != nil {
		return nil, fmt.Errorf("tool %s cannot check its arguments (%v); this is a bug in the tool, not in your call", name, err)
	}
	if sch == nil {
		return json.RawMessage(b), nil
	}
	if vs := sch.validate(inst); len(vs) > 0 {
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
