package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// argSchema is a tool's compiled parameter schema. Validity is decided by
// github.com/google/jsonschema-go (draft 2020-12 and draft-07, $ref and
// $defs within the document; nothing is ever loaded from elsewhere). Its
// error names only the first failed keyword, so when arguments fail,
// explain (schema_errors.go) re-checks their parts against the matching
// subschemas to name every offending field and what it expected.
type argSchema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved

	mu   sync.Mutex
	subs map[*jsonschema.Schema]*jsonschema.Resolved // subschemas resolved on their own, for explain
}

// refuseExternal is the loader for $refs outside the schema document.
func refuseExternal(u *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("external $ref %s: grove never loads schemas", u)
}

// compileSchema parses and resolves a tool's parameter schema.
func compileSchema(doc []byte) (*argSchema, error) {
	doc = bytes.TrimSpace(doc)
	if len(doc) > 0 && doc[0] != '{' && doc[0] != 't' && doc[0] != 'f' {
		return nil, fmt.Errorf("a schema must be a JSON object, got %s", doc[:min(len(doc), 20)])
	}
	root := new(jsonschema.Schema)
	if err := json.Unmarshal(doc, root); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			field := ute.Field[strings.LastIndexByte(ute.Field, '.')+1:]
			return nil, fmt.Errorf("keyword %q: unexpected JSON %s", field, ute.Value)
		}
		return nil, err
	}
	if err := checkKeywords(root, root, "#"); err != nil {
		return nil, err
	}
	if err := checkRefCycles(root); err != nil {
		return nil, err
	}
	// The drafts the library validates, spelled with or without the
	// trailing "#" that schema generators disagree on.
	switch strings.TrimSuffix(root.Schema, "#") {
	case "":
	case "https://json-schema.org/draft/2020-12/schema":
		root.Schema = "https://json-schema.org/draft/2020-12/schema"
	case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema":
		root.Schema = strings.TrimSuffix(root.Schema, "#") + "#"
	default:
		return nil, fmt.Errorf("$schema %q: only draft 2020-12 and draft-07 are supported", root.Schema)
	}
	rs, err := root.Resolve(&jsonschema.ResolveOptions{Loader: refuseExternal})
	if err != nil {
		return nil, err
	}
	return &argSchema{root: root, resolved: rs}, nil
}

var jsonTypeNames = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}

// checkKeywords rejects what the library would accept but never match (an
// unknown type name, a negative length, an empty enum), so no tool gets a
// schema that refuses every call for a reason the model cannot fix. It
// also keeps $ref to the forms grove can follow itself ("#", "#/$defs/…",
// "#/definitions/…", or another document, which is never loaded), so that
// checkRefCycles sees every reference the library will follow.
func checkKeywords(root, s *jsonschema.Schema, at string) error {
	if s == nil {
		return nil
	}
	switch {
	case s.Anchor != "" || s.DynamicAnchor != "" || s.DynamicRef != "":
		return fmt.Errorf("%s: $anchor, $dynamicAnchor and $dynamicRef are not supported", at)
	case s.ID != "" && s != root:
		return fmt.Errorf("%s/$id: only the root may set $id", at)
	case strings.HasPrefix(s.Ref, "#") && (&argSchema{root: root}).localRef(s.Ref) == nil:
		return fmt.Errorf("%s/$ref %q: only #, #/$defs/… and #/definitions/… refs are followed", at, s.Ref)
	case s.Ref != "" && !strings.HasPrefix(s.Ref, "#"):
		return fmt.Errorf("%s/$ref %q: external $ref: grove never loads schemas", at, s.Ref)
	}
	for _, t := range schemaTypes(s) {
		if !jsonTypeNames[t] {
			return fmt.Errorf("%s/type: unknown type %q", at, t)
		}
	}
	for k, n := range map[string]*int{"minLength": s.MinLength, "maxLength": s.MaxLength, "minItems": s.MinItems, "maxItems": s.MaxItems, "minProperties": s.MinProperties, "maxProperties": s.MaxProperties} {
		if n != nil && *n < 0 {
			return fmt.Errorf("%s/%s: expected a non-negative integer", at, k)
		}
	}
	if s.Enum != nil && len(s.Enum) == 0 {
		return fmt.Errorf("%s/enum: expected a non-empty array", at)
	}
	for k, c := range namedSubschemas(s) {
		if err := checkKeywords(root, c, at+"/"+k); err != nil {
			return err
		}
	}
	return nil
}

// subschemas are the schemas directly inside s.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	named := namedSubschemas(s)
	out := make([]*jsonschema.Schema, 0, len(named))
	for _, c := range named {
		out = append(out, c)
	}
	return out
}

func namedSubschemas(s *jsonschema.Schema) map[string]*jsonschema.Schema {
	children := map[string]*jsonschema.Schema{"items": s.Items, "additionalProperties": s.AdditionalProperties, "not": s.Not,
		"if": s.If, "then": s.Then, "else": s.Else, "contains": s.Contains, "propertyNames": s.PropertyNames,
		"additionalItems": s.AdditionalItems, "unevaluatedItems": s.UnevaluatedItems, "unevaluatedProperties": s.UnevaluatedProperties}
	for kw, m := range map[string]map[string]*jsonschema.Schema{"properties": s.Properties, "patternProperties": s.PatternProperties,
		"$defs": s.Defs, "definitions": s.Definitions, "dependentSchemas": s.DependentSchemas} {
		for k, c := range m {
			children[kw+"/"+pointerEscaper.Replace(k)] = c
		}
	}
	for kw, list := range map[string][]*jsonschema.Schema{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf, "prefixItems": s.PrefixItems, "items": s.ItemsArray} {
		for j, c := range list {
			children[kw+"/"+strconv.Itoa(j)] = c
		}
	}
	return children
}

// checkRefCycles rejects a schema whose references loop without moving
// into the instance ({"$ref":"#"}, or two $defs referring to each other
// through allOf): the library would recurse until the stack overflows,
// which no recover can stop. Keywords that apply to a property or an item
// end a path, since the instance is finite.
func checkRefCycles(root *jsonschema.Schema) error {
	a := &argSchema{root: root}
	const visiting, done = 1, 2
	state := map[*jsonschema.Schema]int{}
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		if s == nil || state[s] == done {
			return nil
		}
		if state[s] == visiting {
			return errors.New("$ref cycle that never moves into the arguments")
		}
		state[s] = visiting
		same := []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else}
		if s.Ref != "" {
			same = append(same, a.localRef(s.Ref))
		}
		same = append(append(append(same, s.AllOf...), s.AnyOf...), s.OneOf...)
		for _, d := range s.DependentSchemas {
			same = append(same, d)
		}
		for _, c := range same {
			if err := visit(c); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	var all []*jsonschema.Schema
	var collect func(s *jsonschema.Schema)
	collect = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		all = append(all, s)
		for _, c := range subschemas(s) {
			collect(c)
		}
	}
	collect(root)
	for _, s := range all {
		if err := visit(s); err != nil {
			return err
		}
	}
	return nil
}

// validate checks a decoded instance (see decodeArgs) and describes every
// problem it finds; none means valid.
func (a *argSchema) validate(v any) []violation {
	if a.resolved.Validate(v) == nil {
		return nil
	}
	vs := a.explain(a.root, v, nil)
	if len(vs) == 0 { // explain could not narrow it down: say what the library said
		vs = []violation{{line: "arguments: " + innermost(a.resolved.Validate(v))}}
	}
	return vs
}

// check reports whether v satisfies the subschema s of the document, and
// if not the library's error. A subschema is resolved on its own, with the
// document's $defs beside it so that local $refs still resolve; nil means
// it could not be (an unusual $ref), and the caller explains no deeper.
func (a *argSchema) check(s *jsonschema.Schema, v any) (error, bool) {
	rs := a.resolvedSub(s)
	if rs == nil {
		return nil, false
	}
	return rs.Validate(v), true
}

func (a *argSchema) resolvedSub(s *jsonschema.Schema) *jsonschema.Resolved {
	if s == a.root {
		return a.resolved
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if rs, ok := a.subs[s]; ok {
		return rs
	}
	w := &jsonschema.Schema{Schema: a.root.Schema, AllOf: []*jsonschema.Schema{s.CloneSchemas()}}
	w.Defs = cloneDefs(a.root.Defs)
	w.Definitions = cloneDefs(a.root.Definitions)
	rs, err := w.Resolve(&jsonschema.ResolveOptions{Loader: refuseExternal})
	if err != nil {
		rs = nil
	}
	if a.subs == nil {
		a.subs = map[*jsonschema.Schema]*jsonschema.Resolved{}
	}
	a.subs[s] = rs
	return rs
}

func cloneDefs(defs map[string]*jsonschema.Schema) map[string]*jsonschema.Schema {
	if defs == nil {
		return nil
	}
	out := make(map[string]*jsonschema.Schema, len(defs))
	for k, d := range defs {
		out[k] = d.CloneSchemas()
	}
	return out
}

// localRef finds the target of a $ref into the document's own $defs or
// definitions ("#/$defs/name"), or nil.
func (a *argSchema) localRef(ref string) *jsonschema.Schema {
	for prefix, defs := range map[string]map[string]*jsonschema.Schema{"#/$defs/": a.root.Defs, "#/definitions/": a.root.Definitions} {
		if name, ok := cutPrefix(ref, prefix); ok {
			if n, err := url.PathUnescape(name); err == nil {
				name = n
			}
			return defs[pointerUnescaper.Replace(name)]
		}
	}
	if ref == "#" {
		return a.root
	}
	return nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// decodeArgs decodes arguments for validation: numbers become float64 (the
// library's numeric type); one too large for it becomes ±Inf rather than
// an error, since a JSON number of any size is a number.
func decodeArgs(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return floatNumbers(v), nil
}

func floatNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if math.IsInf(f, 0) { // beyond float64: as large as it gets
			return math.Copysign(math.MaxFloat64, f)
		}
		if err != nil {
			return 0.0
		}
		return f
	case []any:
		for i := range x {
			x[i] = floatNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = floatNumbers(x[k])
		}
	}
	return v
}

// jsonType names the JSON type of a decoded value as JSON Schema does.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if _, frac := math.Modf(x); frac == 0 && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// gotType names v's type for a message: JSON itself has only numbers.
func gotType(v any) string {
	if t := jsonType(v); t != "integer" {
		return t
	}
	return "number"
}

// typeMatches reports whether v has one of the types (an integer is also a
// number).
func typeMatches(types []string, v any) bool {
	got := jsonType(v)
	for _, t := range types {
		if t == got || t == "number" && got == "integer" {
			return true
		}
	}
	return false
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func propertyNames(s *jsonschema.Schema) []string {
	out := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
