// Package schema generates a tool's JSON Schema from its Go parameter
// struct, so the schema the model sees and the struct the handler decodes
// cannot drift apart.
//
// Inference is github.com/google/jsonschema-go's (jsonschema.ForType); the
// `jsonschema:"…"` tag is the description. What that tag cannot say is set
// on the inferred schema from these tags: `required:"true"` makes a
// property required (nothing else is: tools default what is left out);
// `enum:"a,b"` restricts a string; `minItems:"1"` an array;
// `minimum`/`maximum` a number; `schema:"{…}"` replaces the property with
// raw JSON Schema (for anyOf and the like). Structs are closed objects;
// pointers and slices do not admit null (the model should omit a field it
// has no value for); map[string]any and json.RawMessage are any object.
package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Object returns the schema of params (a struct or a pointer to one) as a
// closed JSON object: no properties beyond the struct's.
func Object(params any) (json.RawMessage, error) {
	t := reflect.TypeOf(params)
	if b, ok := objectCache.Load(t); ok {
		return b.(json.RawMessage), nil
	}
	b, err := object(t)
	if err != nil {
		return nil, err
	}
	// Tools build their spec on every model request; the generated schema
	// of a type never changes, so it is made once per process.
	objectCache.Store(t, b)
	return b, nil
}

// objectCache maps a parameter type to its generated schema.
var objectCache sync.Map

func object(t reflect.Type) (json.RawMessage, error) {
	s, err := For(t)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil || len(s.Properties) > 0 {
		return b, err
	}
	// A struct without fields still says it has no properties: some
	// providers reject an object schema without "properties".
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	doc["properties"] = map[string]any{}
	return json.Marshal(doc)
}

// For infers the schema of the struct type t (or a pointer to one).
func For(t reflect.Type) (*jsonschema.Schema, error) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema: %v is not a struct", t)
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: anyObject})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if err := refine(t, s); err != nil {
		return nil, err
	}
	return s, nil
}

// MustObject is Object for parameter structs fixed at compile time; it
// panics on an unsupported field (a programming error a test catches).
func MustObject(params any) json.RawMessage {
	b, err := Object(params)
	if err != nil {
		panic(err)
	}
	return b
}

// anyObject are the types whose values are any JSON object.
var anyObject = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
	reflect.TypeFor[map[string]any]():  {Type: "object"},
}

// refine walks the inferred schema s of type t and applies what inference
// cannot know: no null, required only where tagged, and the constraint tags.
func refine(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dropNull(s)
	if _, special := anyObject[t]; special {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return refine(t.Elem(), s.Items)
		}
	case reflect.Map:
		if s.AdditionalProperties != nil {
			return refine(t.Elem(), s.AdditionalProperties)
		}
	case reflect.Struct:
		return refineStruct(t, s)
	}
	return nil
}

func refineStruct(t reflect.Type, s *jsonschema.Schema) error {
	s.Required = nil
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if err := refine(f.Type, p); err != nil {
			return fmt.Errorf("schema: field %s: %w", f.Name, err)
		}
		if err := applyTags(f, p); err != nil {
			return fmt.Errorf("schema: field %s: %w", f.Name, err)
		}
		if raw := f.Tag.Get("schema"); raw != "" {
			// A shape Go types cannot say (anyOf), written out.
			custom := new(jsonschema.Schema)
			if err := json.Unmarshal([]byte(raw), custom); err != nil {
				return fmt.Errorf("schema: field %s: schema tag: %w", f.Name, err)
			}
			custom.Description = p.Description
			s.Properties[name] = custom
		}
		if f.Tag.Get("required") == "true" && !slices.Contains(s.Required, name) {
			s.Required = append(s.Required, name)
		}
	}
	return nil
}

// applyTags sets the constraint tags of field f on its schema p.
func applyTags(f reflect.StructField, p *jsonschema.Schema) error {
	if e := f.Tag.Get("enum"); e != "" {
		if p.Type != "string" {
			return fmt.Errorf("enum on a non-string")
		}
		for v := range strings.SplitSeq(e, ",") {
			p.Enum = append(p.Enum, v)
		}
	}
	if m := f.Tag.Get("minItems"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || p.Type != "array" {
			return fmt.Errorf("minItems needs an array and a number")
		}
		p.MinItems = &n
	}
	for k, dst := range map[string]**float64{"minimum": &p.Minimum, "maximum": &p.Maximum} {
		if v := f.Tag.Get(k); v != "" {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || (p.Type != "integer" && p.Type != "number") {
				return fmt.Errorf("%s needs a number field and value", k)
			}
			*dst = &n
		}
	}
	return nil
}

// dropNull removes the "null" inference adds for pointers and slices.
func dropNull(s *jsonschema.Schema) {
	if len(s.Types) == 0 {
		return
	}
	types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	if len(types) == 1 {
		s.Type, s.Types = types[0], nil
		return
	}
	s.Types = types
}
