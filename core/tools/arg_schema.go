package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// schema is a compiled tool parameter schema: the part of JSON Schema
// (draft 2020-12) that tool specs use. grove checks arguments with this
// small validator instead of a general JSON Schema library on purpose: the
// library's package init compiled every draft's metaschema, ~5 ms in every
// grove process (the sandbox helper's re-exec included), while tool schemas
// need only these keywords. Any other keyword is a compile error, so no
// constraint is ever silently ignored.
type argSchema struct {
	types        []string // empty = any
	properties   map[string]*argSchema
	required     []string
	additional   *argSchema // schema for properties not listed; nil = any
	noAdditional bool       // additionalProperties: false
	items        *argSchema
	enum         []any
	hasConst     bool
	constVal     any
	minimum      *big.Rat
	maximum      *big.Rat
	exclMin      *big.Rat
	exclMax      *big.Rat
	minLength    int // -1 = unset, as for the three below
	maxLength    int
	minItems     int
	maxItems     int
	pattern      *regexp.Regexp
	anyOf, oneOf []*argSchema
	allOf        []*argSchema
}

// annotations carry no constraint.
var schemaAnnotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "$comment": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "format": true,
}

var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}

// decodeJSON decodes one JSON value keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// compileSchema compiles a decoded schema; at names the keyword path for
// errors ("properties/cmd").
func compileSchema(doc any, at string) (*argSchema, error) {
	if b, ok := doc.(bool); ok {
		if b {
			return &argSchema{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}, nil
		}
		return nil, fmt.Errorf("%s: the false schema is not supported", at)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object, got %s", at, jsonType(doc))
	}
	s := &argSchema{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		where := at + "/" + k
		var err error
		switch k {
		case "type":
			s.types, err = compileTypes(v, where)
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: expected an object", where)
			}
			s.properties = map[string]*argSchema{}
			for name, p := range props {
				if s.properties[name], err = compileSchema(p, where+"/"+name); err != nil {
					return nil, err
				}
			}
		case "required":
			s.required, err = stringList(v, where)
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				s.noAdditional = !b
			} else {
				s.additional, err = compileSchema(v, where)
			}
		case "items":
			s.items, err = compileSchema(v, where)
		case "enum":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s: expected a non-empty array", where)
			}
			s.enum = list
		case "const":
			s.hasConst, s.constVal = true, v
		case "minimum":
			s.minimum, err = ratOf(v, where)
		case "maximum":
			s.maximum, err = ratOf(v, where)
		case "exclusiveMinimum":
			s.exclMin, err = ratOf(v, where)
		case "exclusiveMaximum":
			s.exclMax, err = ratOf(v, where)
		case "minLength":
			s.minLength, err = countOf(v, where)
		case "maxLength":
			s.maxLength, err = countOf(v, where)
		case "minItems":
			s.minItems, err = countOf(v, where)
		case "maxItems":
			s.maxItems, err = countOf(v, where)
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s: expected a string", where)
			}
			if s.pattern, err = regexp.Compile(p); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		case "anyOf", "oneOf", "allOf":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s: expected a non-empty array of schemas", where)
			}
			subs := make([]*argSchema, len(list))
			for i, sub := range list {
				if subs[i], err = compileSchema(sub, fmt.Sprintf("%s/%d", where, i)); err != nil {
					return nil, err
				}
			}
			switch k {
			case "anyOf":
				s.anyOf = subs
			case "oneOf":
				s.oneOf = subs
			default:
				s.allOf = subs
			}
		default:
			if !schemaAnnotations[k] {
				return nil, fmt.Errorf("%s: keyword not supported in tool schemas", where)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func compileTypes(v any, where string) ([]string, error) {
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			n, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s: expected type names, got %s", where, jsonType(x))
			}
			names = append(names, n)
		}
	default:
		return nil, fmt.Errorf("%s: expected a type name or a list of them, got %s", where, jsonType(v))
	}
	for _, n := range names {
		if !jsonTypes[n] {
			return nil, fmt.Errorf("%s: unknown type %q", where, n)
		}
	}
	return names, nil
}

func stringList(v any, where string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected an array of strings", where)
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, fmt.Errorf("%s: expected an array of strings", where)
		}
	}
	return out, nil
}

func ratOf(v any, where string) (*big.Rat, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: expected a number, got %s", where, jsonType(v))
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil, fmt.Errorf("%s: bad number %s", where, n)
	}
	return r, nil
}

func countOf(v any, where string) (int, error) {
	r, err := ratOf(v, where)
	if err != nil {
		return 0, err
	}
	if !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return 0, fmt.Errorf("%s: expected a non-negative integer", where)
	}
	return int(r.Num().Int64()), nil
}

// jsonType names the JSON type of a decoded value as JSON Schema does.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// violation is one failed constraint at an instance location. A type
// mismatch keeps what was wanted, so alternatives can be merged.
type violation struct {
	loc      []string
	wantType []string
	got      string
	line     string // the full message for other kinds
}

// validate checks v against s; loc is v's location in the arguments.
func (s *argSchema) validate(v any, loc []string) []violation {
	if len(s.types) > 0 && !typeMatches(s.types, v) {
		return []violation{{loc: loc, wantType: s.types, got: jsonType(v)}}
	}
	var out []violation
	add := func(format string, args ...any) {
		out = append(out, violation{loc: loc, line: fieldPrefix(loc) + fmt.Sprintf(format, args...)})
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(w any) bool { return equalJSON(w, v) }) {
		want := make([]string, len(s.enum))
		for i, w := range s.enum {
			want[i] = jsonText(w)
		}
		add("expected one of %s, got %s", strings.Join(want, ", "), jsonText(v))
	}
	if s.hasConst && !equalJSON(s.constVal, v) {
		add("expected %s, got %s", jsonText(s.constVal), jsonText(v))
	}
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			if s.minimum != nil && r.Cmp(s.minimum) < 0 {
				add("expected a number >= %s, got %s", ratText(s.minimum), ratText(r))
			}
			if s.maximum != nil && r.Cmp(s.maximum) > 0 {
				add("expected a number <= %s, got %s", ratText(s.maximum), ratText(r))
			}
			if s.exclMin != nil && r.Cmp(s.exclMin) <= 0 {
				add("expected a number > %s, got %s", ratText(s.exclMin), ratText(r))
			}
			if s.exclMax != nil && r.Cmp(s.exclMax) >= 0 {
				add("expected a number < %s, got %s", ratText(s.exclMax), ratText(r))
			}
		}
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLength >= 0 && n < s.minLength {
			add("expected at least %d characters, got %d", s.minLength, n)
		}
		if s.maxLength >= 0 && n > s.maxLength {
			add("expected at most %d characters, got %d", s.maxLength, n)
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			add("expected a string matching %s", s.pattern)
		}
	case []any:
		if s.minItems >= 0 && len(x) < s.minItems {
			add("expected at least %d items, got %d", s.minItems, len(x))
		}
		if s.maxItems >= 0 && len(x) > s.maxItems {
			add("expected at most %d items, got %d", s.maxItems, len(x))
		}
		if s.items != nil {
			for i, item := range x {
				out = append(out, s.items.validate(item, childLoc(loc, fmt.Sprint(i)))...)
			}
		}
	case map[string]any:
		for _, name := range s.required {
			if _, ok := x[name]; !ok {
				out = append(out, violation{loc: loc, line: requiredLine(s, childLoc(loc, name))})
			}
		}
		names := make([]string, 0, len(x))
		for name := range x {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if p, ok := s.properties[name]; ok {
				out = append(out, p.validate(x[name], childLoc(loc, name))...)
				continue
			}
			switch {
			case s.noAdditional:
				msg := fmt.Sprintf("unknown field %q", jsonPointer(childLoc(loc, name)))
				if allowed := s.propertyNames(); len(allowed) > 0 {
					msg += " (allowed fields: " + strings.Join(allowed, ", ") + ")"
				}
				out = append(out, violation{loc: loc, line: msg})
			case s.additional != nil:
				out = append(out, s.additional.validate(x[name], childLoc(loc, name))...)
			}
		}
	}
	for _, sub := range s.allOf {
		out = append(out, sub.validate(v, loc)...)
	}
	if s.anyOf != nil {
		out = append(out, alternatives(s.anyOf, v, loc, false)...)
	}
	if s.oneOf != nil {
		out = append(out, alternatives(s.oneOf, v, loc, true)...)
	}
	return out
}

// alternatives checks anyOf (or oneOf, when one is set). Alternatives that
// failed only on the value's type say little: report the ones that accepted
// the type but failed deeper, or else the types that would have been
// accepted.
func alternatives(alts []*argSchema, v any, loc []string, one bool) []violation {
	var deeper []violation
	var wants []string
	matched := 0
	for _, a := range alts {
		errs := a.validate(v, loc)
		switch {
		case len(errs) == 0:
			matched++
		case len(errs) == 1 && errs[0].wantType != nil && slices.Equal(errs[0].loc, loc):
			wants = append(wants, errs[0].wantType...)
		default:
			deeper = append(deeper, errs...)
		}
	}
	switch {
	case matched == 1 || matched > 1 && !one:
		return nil
	case matched > 1:
		return []violation{{loc: loc, line: fieldPrefix(loc) + "matches more than one of the allowed forms"}}
	case len(deeper) == 0:
		return []violation{{loc: loc, wantType: wants, got: jsonType(v)}}
	}
	return deeper
}

func typeMatches(types []string, v any) bool {
	got := jsonType(v)
	for _, t := range types {
		if t == got {
			return true
		}
		if t == "integer" && got == "number" {
			if n, ok := v.(json.Number); ok {
				if r, ok := new(big.Rat).SetString(string(n)); ok && r.IsInt() {
					return true
				}
			}
		}
	}
	return false
}

// equalJSON compares decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, okA := new(big.Rat).SetString(string(x))
		rb, okB := new(big.Rat).SetString(string(y))
		return okA && okB && ra.Cmp(rb) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	return a == b
}

func childLoc(loc []string, seg string) []string {
	return append(append(make([]string, 0, len(loc)+1), loc...), seg)
}

func (s *argSchema) propertyNames() []string {
	out := make([]string, 0, len(s.properties))
	for n := range s.properties {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
