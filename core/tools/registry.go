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

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/grovecli/grove/core/model"
)

// Registry maps tool names to handlers and validates every call's
// arguments against the tool's JSON schema before the handler runs.
type Registry struct {
	mu      sync.RWMutex
	order   []string
	tools   map[string]Tool
	schemas map[string]*jsonschema.Schema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]Tool{}, schemas: map[string]*jsonschema.Schema{}}
}

// Register adds a tool, compiling its schema once.
func (r *Registry) Register(t Tool) error {
	spec := t.Spec()
	if spec.Name == "" {
		return errors.New("register tool: empty name")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.Parameters))
	if err != nil {
		return fmt.Errorf("register tool %s: schema is not JSON: %w", spec.Name, err)
	}
	c := jsonschema.NewCompiler()
	url := "tool:///" + spec.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("register tool %s: %w", spec.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("register tool %s: schema: %w", spec.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[spec.Name]; dup {
		return fmt.Errorf("register tool %s: already registered", spec.Name)
	}
	r.tools[spec.Name] = t
	r.schemas[spec.Name] = sch
	r.order = append(r.order, spec.Name)
	return nil
}

// Get returns a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names lists registered tools, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := append([]string(nil), r.order...)
	sort.Strings(out)
	return out
}

// Specs returns the schemas of the allowed tools in registration order
// (nil allow = all).
func (r *Registry) Specs(allow func(name string) bool) []model.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]model.ToolSpec, 0, len(r.order))
	for _, n := range r.order {
		if allow == nil || allow(n) {
			out = append(out, r.tools[n].Spec())
		}
	}
	return out
}

// Run validates args and runs the tool.
func (r *Registry) Run(ctx context.Context, env *Env, name string, args json.RawMessage) Result {
	return r.RunAllowed(ctx, env, name, args, nil)
}

// RunAllowed is Run with a tool policy: a tool the policy excludes is
// refused with a message the model can act on.
func (r *Registry) RunAllowed(ctx context.Context, env *Env, name string, args json.RawMessage, allow func(string) bool) Result {
	r.mu.RLock()
	t, ok := r.tools[name]
	sch := r.schemas[name]
	r.mu.RUnlock()
	if !ok {
		return Errorf("unknown tool %q; available tools: %s", name, strings.Join(r.Names(), ", "))
	}
	if allow != nil && !allow(name) {
		return Errorf("tool %q is not available to this agent (blocked by its template's allow_list/deny_list)", name)
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return Errorf("invalid arguments for %s: not valid JSON (%v); send a JSON object", name, jsonErr(args, err))
	}
	if err := sch.Validate(inst); err != nil {
		return Errorf("invalid arguments for %s: %s", name, describeSchemaError(err))
	}
	start := time.Now()
	res := t.Run(ctx, env, args)
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	return res
}

func jsonErr(args []byte, err error) string {
	var syn *json.SyntaxError
	if json.Unmarshal(args, new(any)) != nil {
		if e := json.Unmarshal(args, new(any)); errors.As(e, &syn) {
			return fmt.Sprintf("%v at byte %d", syn, syn.Offset)
		}
	}
	return err.Error()
}

var printer = message.NewPrinter(language.English)

// describeSchemaError flattens a validation error tree into short lines
// naming each offending field.
func describeSchemaError(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			field := "/" + strings.Join(e.InstanceLocation, "/")
			msg := e.ErrorKind.LocalizedString(printer)
			if field == "/" {
				lines = append(lines, msg)
			} else {
				lines = append(lines, fmt.Sprintf("field %q: %s", strings.TrimPrefix(field, "/"), msg))
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(lines) == 0 {
		return ve.Error()
	}
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}
