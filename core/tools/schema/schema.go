// Package schema generates a tool's JSON Schema from its Go parameter
// struct, so the schema the model sees and the struct the handler decodes
// cannot drift apart.
//
// Field tags: `json:"name"` names the property (`-` skips it); `desc:"…"`
// describes it; `enum:"a,b"` restricts a string; `minItems:"1"` an array;
// `minimum`/`maximum` a number; `schema:"{…}"` replaces the property with
// raw JSON Schema (for anyOf and the like); `required:"true"` makes it
// required. Supported kinds: string, bool,
// integers, floats, structs (closed objects; embedded ones are flattened),
// slices of those, and map[string]any / json.RawMessage (any object).
package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Object returns the schema of params (a struct or a pointer to one) as a
// closed JSON object: no properties beyond the struct's.
func Object(params any) (json.RawMessage, error) {
	t := reflect.TypeOf(params)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema: %T is not a struct", params)
	}
	doc, err := object(t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// object describes a struct type as a closed object; embedded structs
// contribute their fields.
func object(t reflect.Type) (map[string]any, error) {
	props := map[string]any{}
	var required []string
	if err := addFields(t, props, &required); err != nil {
		return nil, err
	}
	doc := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		doc["required"] = required
	}
	return doc, nil
}

func addFields(t reflect.Type, props map[string]any, required *[]string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			if err := addFields(f.Type, props, required); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p, err := property(f.Type)
		if err != nil {
			return fmt.Errorf("schema: field %s: %w", f.Name, err)
		}
		if d := f.Tag.Get("desc"); d != "" {
			p["description"] = d
		}
		if e := f.Tag.Get("enum"); e != "" {
			if p["type"] != "string" {
				return fmt.Errorf("schema: field %s: enum on a non-string", f.Name)
			}
			p["enum"] = strings.Split(e, ",")
		}
		if m := f.Tag.Get("minItems"); m != "" {
			n, err := strconv.Atoi(m)
			if err != nil || p["type"] != "array" {
				return fmt.Errorf("schema: field %s: minItems needs an array and a number", f.Name)
			}
			p["minItems"] = n
		}
		for _, k := range []string{"minimum", "maximum"} {
			if v := f.Tag.Get(k); v != "" {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil || (p["type"] != "integer" && p["type"] != "number") {
					return fmt.Errorf("schema: field %s: %s needs a number field and value", f.Name, k)
				}
				p[k] = n
			}
		}
		if raw := f.Tag.Get("schema"); raw != "" {
			// A shape Go types cannot say (anyOf), written out.
			var custom map[string]any
			if err := json.Unmarshal([]byte(raw), &custom); err != nil {
				return fmt.Errorf("schema: field %s: schema tag: %w", f.Name, err)
			}
			if d, ok := p["description"]; ok {
				custom["description"] = d
			}
			p = custom
		}
		if f.Tag.Get("required") == "true" {
			*required = append(*required, name)
		}
		props[name] = p
	}
	return nil
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

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

func property(t reflect.Type) (map[string]any, error) {
	if t == rawMessage {
		return map[string]any{"type": "object"}, nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice:
		items, err := property(t.Elem())
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	case reflect.Struct:
		return object(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %s is not a string", t.Key())
		}
		return map[string]any{"type": "object"}, nil
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}
