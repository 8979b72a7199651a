package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// argSchema is a tool's compiled parameter schema. Validation is
// github.com/santhosh-tekuri/jsonschema/v6's (drafts 4 to 2020-12; $ref,
// $defs, anchors and $id within the document; nothing is ever loaded from
// elsewhere). It reports every failed keyword as a tree; schema_errors.go
// turns that tree into the model's message. The schema is compiled once,
// on the tool's first call.
type argSchema struct {
	sch *jsonschema.Schema
	// doc is the schema document, to say what a subschema expects (the
	// type of a missing field, the fields an object allows).
	doc any
}

// schemaURL names a tool's schema document (never fetched).
const schemaURL = "https://grove.invalid/tool-parameters.json"

// refuseLoader is the loader for $refs outside the schema document.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %s: grove never loads schemas", url)
}

// annotationFormats are the formats the drafts define. "format" only
// annotates (as in draft 2020-12 without the assertion vocabulary) for
// every draft: a tool's schema that says "uri" never refused a call for it,
// and the tool checks what it needs.
var annotationFormats = []string{"date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
	"ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer",
	"regex", "uuid", "period", "semver"}

// compileSchema parses and compiles a tool's parameter schema.
func compileSchema(doc []byte) (*argSchema, error) {
	doc = bytes.TrimSpace(doc)
	if len(doc) > 0 && doc[0] != '{' && doc[0] != 't' && doc[0] != 'f' {
		return nil, fmt.Errorf("a schema must be a JSON object, got %s", doc[:min(len(doc), 20)])
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		// Schema generators disagree on the trailing "#" of the 2020-12 URL.
		if s, _ := m["$schema"].(string); strings.TrimSuffix(s, "#") == "https://json-schema.org/draft/2020-12/schema" {
			m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		}
	}
	if err := checkRefCycles(v); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	for _, f := range annotationFormats {
		c.RegisterFormat(&jsonschema.Format{Name: f, Validate: func(any) error { return nil }})
	}
	if err := c.AddResource(schemaURL, v); err != nil {
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, schemaError(err)
	}
	return &argSchema{sch: sch, doc: v}, nil
}

// schemaError says why a schema did not compile: where it breaks the
// draft's metaschema, in the words arguments get.
func schemaError(err error) error {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		if vs := (&explainer{}).explain(ve); len(vs) > 0 {
			return errors.New("not a valid JSON Schema: " + strings.ReplaceAll(describeViolations(vs), "field ", "keyword "))
		}
	}
	return errors.New(strings.ReplaceAll(err.Error(), schemaURL, "the schema"))
}

// validate checks a decoded instance (see decodeArgs) and describes every
// problem it finds; none means valid.
func (a *argSchema) validate(v any) []violation {
	err := a.sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		if vs := (&explainer{doc: a.doc}).explain(ve); len(vs) > 0 {
			return vs
		}
	}
	// The formatter could not narrow it down: say what the library said.
	return []violation{{line: "arguments: " + strings.ReplaceAll(err.Error(), schemaURL, "the schema")}}
}

// decodeArgs decodes arguments for validation. Numbers stay json.Number:
// the library compares them exactly, of any size.
func decodeArgs(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// checkRefCycles rejects a schema whose references loop without moving
// into the instance ({"$ref":"#"}, or two $defs referring to each other
// through allOf): every call reaching it would fail for a reason the model
// cannot fix, so such a schema is not used (a run-time tool's server
// validates instead). Keywords that apply to a property or an item end a
// path, since the instance is finite.
func checkRefCycles(doc any) error {
	x := &explainer{doc: doc}
	const visiting, done = 1, 2
	state := map[string]int{}
	var visit func(ptr string, s map[string]any) error
	visit = func(ptr string, s map[string]any) error {
		if s == nil || state[ptr] == done {
			return nil
		}
		if state[ptr] == visiting {
			return fmt.Errorf("$ref cycle through #%s that never moves into the arguments", ptr)
		}
		state[ptr] = visiting
		for _, next := range sameInstance(ptr, s) {
			if err := visit(next, x.subschema("#"+next)); err != nil {
				return err
			}
		}
		state[ptr] = done
		return nil
	}
	var walk func(ptr string, v any) error
	walk = func(ptr string, v any) error {
		switch c := v.(type) {
		case map[string]any:
			if err := visit(ptr, c); err != nil {
				return err
			}
			for k, sub := range c {
				if err := walk(ptr+"/"+pointerEscaper.Replace(k), sub); err != nil {
					return err
				}
			}
		case []any:
			for i, sub := range c {
				if err := walk(ptr+"/"+strconv.Itoa(i), sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk("", doc)
}

// sameInstance are the pointers of the schemas that s applies to the same
// value: its local $ref and its in-place applicators.
func sameInstance(ptr string, s map[string]any) []string {
	var out []string
	if ref, ok := s["$ref"].(string); ok && (ref == "#" || strings.HasPrefix(ref, "#/")) {
		out = append(out, strings.TrimPrefix(ref, "#"))
	}
	for _, kw := range []string{"not", "if", "then", "else"} {
		if _, ok := s[kw].(map[string]any); ok {
			out = append(out, ptr+"/"+kw)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[kw].([]any)
		for i := range list {
			out = append(out, ptr+"/"+kw+"/"+strconv.Itoa(i))
		}
	}
	if deps, ok := s["dependentSchemas"].(map[string]any); ok {
		for k := range deps {
			out = append(out, ptr+"/dependentSchemas/"+pointerEscaper.Replace(k))
		}
	}
	return out
}
