package tools

import (
	"strings"
	"testing"
)

func mustSchema(t *testing.T, src string) *argSchema {
	t.Helper()
	s, err := compileSchema([]byte(src))
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	return s
}

func check(t *testing.T, s *argSchema, args string) string {
	t.Helper()
	v, err := decodeArgs([]byte(args))
	if err != nil {
		t.Fatal(err)
	}
	vs := s.validate(v)
	if len(vs) == 0 {
		return ""
	}
	return describeViolations(vs)
}

func TestSchemaValidation(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{
		"n":{"type":"integer","minimum":1,"exclusiveMaximum":10},
		"f":{"type":"number","exclusiveMinimum":0.5},
		"name":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-zé]+$"},
		"mode":{"enum":["a","b",1]},
		"k":{"const":{"x":[1,2]}},
		"list":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}},
		"either":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]},
		"one":{"oneOf":[{"type":"integer"},{"type":"number"}]},
		"both":{"allOf":[{"type":"string"},{"minLength":2}]}
	},"required":["n"],"additionalProperties":{"type":"boolean"}}`)
	for _, tc := range []struct{ args, want string }{
		{`{"n":1}`, ""},
		{`{"n":1.0}`, ""},
		{`{"n":9.000}`, ""},
		{`{"n":1.5}`, `field "n": expected integer, got number`},
		{`{"n":0}`, `field "n": expected a number >= 1, got 0`},
		{`{"n":10}`, `field "n": expected a number < 10, got 10`},
		{`{"n":1,"f":0.5}`, `field "f": expected a number > 0.5, got 0.5`},
		{`{"n":1,"f":1e400}`, ""},
		{`{}`, `field "n" is required (expected integer)`},
		{`[]`, `arguments must be a JSON object, got array`},
		{`{"n":1,"name":"é"}`, `field "name": expected at least 2 characters, got 1`},
		{`{"n":1,"name":"éé"}`, ""},
		{`{"n":1,"name":"abcd"}`, `field "name": expected at most 3 characters, got 4`},
		{`{"n":1,"name":"A1"}`, `field "name": expected a string matching ^[a-zé]+$`},
		{`{"n":1,"mode":1.0}`, ""},
		{`{"n":1,"mode":"c"}`, `field "mode": expected one of "a", "b", 1, got "c"`},
		{`{"n":1,"k":{"x":[1,2.0]}}`, ""},
		{`{"n":1,"k":{"x":[2,1]}}`, `field "k": expected {"x":[1,2]}, got {"x":[2,1]}`},
		{`{"n":1,"list":[]}`, `field "list": expected at least 1 items, got 0`},
		{`{"n":1,"list":[{"id":"a"},{"id":"b"},{"id":"c"}]}`, `field "list": expected at most 2 items, got 3`},
		{`{"n":1,"list":[{"id":1,"x":2}]}`, `field "list/0/id": expected string, got number; unknown field "list/0/x" (allowed fields: id)`},
		{`{"n":1,"either":["a"]}`, ""},
		{`{"n":1,"either":3}`, `field "either": expected string or array, got number`},
		{`{"n":1,"either":[3]}`, `field "either/0": expected string, got number`},
		{`{"n":1,"one":1.5}`, ""},
		{`{"n":1,"one":2}`, `field "one": matches more than one of the allowed forms`},
		{`{"n":1,"both":"a"}`, `field "both": expected at least 2 characters, got 1`},
		{`{"n":1,"extra":true}`, ""},
		{`{"n":1,"extra":"yes"}`, `field "extra": expected boolean, got string`},
		{`{"n":"1","name":5}`, `field "n": expected integer, got string; field "name": expected string, got number`},
	} {
		if got := check(t, s, tc.args); got != tc.want {
			t.Errorf("validate %s\n got: %s\nwant: %s", tc.args, got, tc.want)
		}
	}
}

func TestSchemaCompileErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// The draft's metaschema decides, and says where in the words
		// arguments get.
		{`{"type":12}`, `not a valid JSON Schema: keyword "type": expected one of "array", "boolean", "integer", "null", "number", "object", "string", got 12`},
		{`{"type":"int"}`, `keyword "type": expected one of "array", "boolean", "integer", "null", "number", "object", "string", got "int"`},
		{`{"properties":{"a":{"$ref":"#/x"}}}`, `json-pointer in "the schema#/x" not found`},
		// Loops that never move into the arguments: every call would fail.
		{`{"$ref":"#"}`, "$ref cycle"},
		{`{"allOf":[{"$ref":"#"}]}`, "$ref cycle"},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, "$ref cycle"},
		{`{"$defs":{"a":{"not":{"$ref":"#/$defs/a"}}}}`, "$ref cycle"},
		{`{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "grove never loads schemas"},
		{`{"$ref":"other.json#/a"}`, "grove never loads schemas"},
		{`{"$schema":"https://example.com/my-draft"}`, "grove never loads schemas"},
		{`{"pattern":"("}`, "error parsing regexp"},
		{`{"minLength":-1}`, `keyword "minLength": expected a number >= 0, got -1`},
		{`{"properties":{"a":{"items":{"maxItems":-2}}}}`, `keyword "properties/a/items/maxItems": expected a number >= 0, got -2`},
		{`{"anyOf":[3]}`, `keyword "anyOf/0": expected boolean or object, got number`},
		{`{"required":"a"}`, `keyword "required": expected array, got string`},
		{`"x"`, `a schema must be a JSON object, got "x"`},
	} {
		_, err := compileSchema([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("compile %s: got %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
	// What the validator supports is accepted: older drafts, anchors, a
	// nested $id (its refs stay inside the document).
	for _, src := range []string{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"string"}}}`,
		`{"$defs":{"a":{"$anchor":"x","type":"string"}},"properties":{"a":{"$ref":"#x"}}}`,
		`{"properties":{"a":{"$id":"https://x.dev/a","type":"string"}}}`} {
		if got := check(t, mustSchema(t, src), `{"a":1}`); got != `field "a": expected string, got number` {
			t.Errorf("%s: %q", src, got)
		}
	}
	// Annotations are accepted and change nothing.
	for _, draft := range []string{"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"} {
		s := mustSchema(t, `{"type":"string","description":"d","title":"t","default":"x","format":"uri","$schema":"`+draft+`"}`)
		if got := check(t, s, `"not a uri"`); got != "" {
			t.Fatalf("%s: annotation constrained the value: %s", draft, got)
		}
	}
}

// Schemas may refer within themselves ($defs, draft-07 definitions): such
// refs are followed both to decide and to explain.
func TestSchemaLocalRefs(t *testing.T) {
	s := mustSchema(t, `{"type":"object","$defs":{"step":{"type":"object","properties":{"status":{"enum":["pending","done"]},"next":{"$ref":"#/$defs/step"}},"required":["status"],"additionalProperties":false}},
		"properties":{"plan":{"type":"array","items":{"$ref":"#/$defs/step"}},"not_x":{"not":{"const":"x"}}}}`)
	for _, tc := range []struct{ args, want string }{
		{`{"plan":[{"status":"done","next":{"status":"pending"}}]}`, ""},
		{`{"plan":[{"status":"later"}]}`, `field "plan/0/status": expected one of "pending", "done", got "later"`},
		{`{"plan":[{"status":"done","next":{"what":1}}]}`, `field "plan/0/next/status" is required (expected one of "pending", "done"); unknown field "plan/0/next/what" (allowed fields: next, status)`},
		{`{"not_x":"x"}`, `field "not_x": matches a form that is not allowed`},
		{`{"not_x":"y"}`, ""},
	} {
		if got := check(t, s, tc.args); got != tc.want {
			t.Errorf("validate %s\n got: %s\nwant: %s", tc.args, got, tc.want)
		}
	}
	for _, v := range []string{"http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2020-12/schema#"} {
		s := mustSchema(t, `{"$schema":"`+v+`","properties":{"a":{"type":"string"}}}`)
		if got, want := check(t, s, `{"a":1}`), `field "a": expected string, got number`; got != want {
			t.Errorf("$schema %s: got %q, want %q", v, got, want)
		}
	}
	d7 := mustSchema(t, `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer","maximum":3}},"properties":{"n":{"$ref":"#/definitions/n"}}}`)
	if got, want := check(t, d7, `{"n":4}`), `field "n": expected a number <= 3, got 4`; got != want {
		t.Errorf("draft-07 ref: got %q, want %q", got, want)
	}
}

func BenchmarkValidateExecArgs(b *testing.B) {
	r := NewRegistry()
	if err := RegisterCore(r); err != nil {
		b.Fatal(err)
	}
	r.mu.RLock()
	e := r.tools["exec_command"]
	r.mu.RUnlock()
	args := []byte(`{"cmd":"go test ./...","workdir":"sub","timeout_ms":60000}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.validate("exec_command", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateExecArgsInvalid is a refused call: the validator's
// error tree and the model's message.
func BenchmarkValidateExecArgsInvalid(b *testing.B) {
	r := NewRegistry()
	if err := RegisterCore(r); err != nil {
		b.Fatal(err)
	}
	r.mu.RLock()
	e := r.tools["exec_command"]
	r.mu.RUnlock()
	args := []byte(`{"cmd":5,"timeout_ms":"soon","bogus":true}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.validate("exec_command", args); err == nil {
			b.Fatal("invalid arguments accepted")
		}
	}
}
