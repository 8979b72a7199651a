package tools

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// violation is one failed constraint at an instance location. A type
// mismatch keeps what was wanted, so alternatives can be merged.
type violation struct {
	loc      []string
	wantType []string
	got      string
	line     string // the full message for other kinds
}

// explainer turns the validator's error tree into violations: one per
// failed keyword that names a field, what was expected and what came.
// Groups, $refs and allOf only collect their causes; anyOf/oneOf report
// the alternatives that accepted the value's type and failed deeper, or
// else the types that would have been accepted.
type explainer struct {
	doc any // the schema document (nil: no detail from it)
}

var printer = message.NewPrinter(language.English)

func (x *explainer) explain(e *jsonschema.ValidationError) []violation {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		var out []violation
		for _, c := range e.Causes {
			out = append(out, x.explain(c)...)
		}
		return out
	case *kind.AnyOf:
		return x.alternatives(e)
	case *kind.OneOf:
		if len(k.Subschemas) > 0 {
			return []violation{{loc: loc, line: fieldPrefix(loc) + "matches more than one of the allowed forms"}}
		}
		return x.alternatives(e)
	case *kind.Type:
		got := k.Got
		if got == "integer" {
			got = "number" // JSON itself has only numbers
		}
		return []violation{{loc: loc, wantType: k.Want, got: got}}
	case *kind.Required:
		out := make([]violation, 0, len(k.Missing))
		for _, name := range k.Missing {
			out = append(out, violation{loc: loc, line: x.requiredLine(e.SchemaURL, childLoc(loc, name))})
		}
		return out
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		allowed := x.propertyNames(e.SchemaURL)
		out := make([]violation, 0, len(props))
		for _, p := range props {
			line := fmt.Sprintf("unknown field %q", jsonPointer(childLoc(loc, p)))
			if len(allowed) > 0 {
				line += " (allowed fields: " + strings.Join(allowed, ", ") + ")"
			}
			out = append(out, violation{loc: loc, line: line})
		}
		return out
	}
	return []violation{{loc: loc, line: fieldPrefix(loc) + keywordText(e.ErrorKind)}}
}

// alternatives explains a failed anyOf or oneOf from its causes, one per
// alternative that failed.
func (x *explainer) alternatives(e *jsonschema.ValidationError) []violation {
	var deeper []violation
	var wants []string
	got := ""
	for _, alt := range e.Causes {
		vs := x.explain(alt)
		if len(vs) == 1 && vs[0].wantType != nil && len(vs[0].loc) == len(e.InstanceLocation) {
			wants, got = append(wants, vs[0].wantType...), vs[0].got
			continue
		}
		deeper = append(deeper, vs...)
	}
	if len(deeper) == 0 && len(wants) > 0 {
		return []violation{{loc: e.InstanceLocation, wantType: wants, got: got}}
	}
	return deeper
}

// keywordText says what a failed keyword expected, in words the model can
// act on; a keyword not listed keeps the library's wording.
func keywordText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Enum:
		vals := make([]string, len(k.Want))
		for i, w := range k.Want {
			vals[i] = jsonText(w)
		}
		return fmt.Sprintf("expected one of %s, got %s", strings.Join(vals, ", "), jsonText(k.Got))
	case *kind.Const:
		return fmt.Sprintf("expected %s, got %s", jsonText(k.Want), jsonText(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("expected a number >= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("expected a number <= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("expected a number > %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("expected a number < %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("expected a multiple of %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("expected at least %d characters, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("expected at most %d characters, got %d", k.Want, k.Got)
	case *kind.Pattern:
		return "expected a string matching " + k.Want
	case *kind.MinItems:
		return fmt.Sprintf("expected at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("expected at most %d items, got %d", k.Want, k.Got)
	case *kind.MinProperties:
		return fmt.Sprintf("expected at least %d fields, got %d", k.Want, k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("expected at most %d fields, got %d", k.Want, k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("expected items that are all different (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.Not:
		return "matches a form that is not allowed"
	case *kind.FalseSchema:
		return "no value is allowed here"
	}
	return k.LocalizedString(printer)
}

// requiredLine reports a missing field and what it should hold.
func (x *explainer) requiredLine(objURL string, loc []string) string {
	msg := fmt.Sprintf("field %q is required", jsonPointer(loc))
	props, _ := x.subschema(objURL)["properties"].(map[string]any)
	prop, _ := props[loc[len(loc)-1]].(map[string]any)
	if want := expected(prop); want != "" {
		msg += " (expected " + want + ")"
	}
	return msg
}

// expected describes what a schema accepts ("string", "one of …"), or ""
// when it does not say.
func expected(s map[string]any) string {
	if enum, ok := s["enum"].([]any); ok {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = jsonText(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	types := schemaTypes(s)
	if len(types) == 0 {
		for _, kw := range []string{"anyOf", "oneOf"} {
			alts, _ := s[kw].([]any)
			for _, alt := range alts {
				m, _ := alt.(map[string]any)
				types = append(types, schemaTypes(m)...)
			}
		}
	}
	return strings.Join(types, " or ")
}

func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if n, ok := x.(string); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

// propertyNames are the fields the object schema at url names.
func (x *explainer) propertyNames(url string) []string {
	props, _ := x.subschema(url)["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for n := range props {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// subschema is the schema at a location the validator reports
// ("…#/$defs/step/properties/next"), or nil.
func (x *explainer) subschema(loc string) map[string]any {
	_, frag, _ := strings.Cut(loc, "#")
	cur := x.doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		tok = pointerUnescaper.Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// describeViolations turns validation failures into one sorted line per
// problem, each naming the offending field as a JSON pointer and saying
// what was expected (`field "timeout_ms": expected integer, got string`).
func describeViolations(vs []violation) string {
	lines := make([]string, 0, len(vs))
	for _, v := range vs {
		lines = append(lines, v.text())
	}
	sort.Strings(lines)
	out := lines[:1]
	for _, l := range lines[1:] {
		if l != out[len(out)-1] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

func (v violation) text() string {
	if v.wantType == nil {
		return v.line
	}
	want := strings.Join(v.wantType, " or ")
	if len(v.loc) == 0 {
		return fmt.Sprintf("arguments must be a JSON %s, got %s", want, v.got)
	}
	return fieldPrefix(v.loc) + fmt.Sprintf("expected %s, got %s", want, v.got)
}

func fieldPrefix(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return fmt.Sprintf("field %q: ", jsonPointer(loc))
}

func childLoc(loc []string, seg string) []string {
	return append(append(make([]string, 0, len(loc)+1), loc...), seg)
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// jsonPointer renders an instance location as an RFC 6901 pointer without
// its leading slash ("plan/0/status"), which reads better in a sentence.
func jsonPointer(loc []string) string {
	esc := make([]string, len(loc))
	for i, s := range loc {
		esc[i] = pointerEscaper.Replace(s)
	}
	return strings.Join(esc, "/")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// ratText writes an exact number: its digits when it is a short integer,
// else twelve significant digits.
func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if s := r.Num().String(); r.IsInt() && len(s) <= 20 {
		return s
	}
	return new(big.Float).SetRat(r).Text('g', 12)
}
