package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// violation is one failed constraint at an instance location. A type
// mismatch keeps what was wanted, so alternatives can be merged.
type violation struct {
	loc      []string
	wantType []string
	got      string
	line     string // the full message for other kinds
}

// explain describes why v (at loc) fails s, which the caller knows it
// does: first the type, then every property or item that fails its own
// subschema, then allOf/anyOf/oneOf members; only when no part is to blame
// does it name the keyword of s that failed.
func (a *argSchema) explain(s *jsonschema.Schema, v any, loc []string) []violation {
	if s.Ref != "" {
		if t := a.localRef(s.Ref); t != nil {
			if err, ok := a.check(t, v); ok && err != nil {
				return a.explain(t, v, loc)
			}
		}
	}
	if types := schemaTypes(s); len(types) > 0 && !typeMatches(types, v) {
		return []violation{{loc: loc, wantType: types, got: gotType(v)}}
	}
	var out []violation
	switch x := v.(type) {
	case map[string]any:
		out = a.explainObject(s, x, loc)
	case []any:
		if s.Items != nil {
			for i, item := range x {
				if err, ok := a.check(s.Items, item); ok && err != nil {
					out = append(out, a.explain(s.Items, item, childLoc(loc, strconv.Itoa(i)))...)
				}
			}
		}
	}
	for _, m := range s.AllOf {
		if err, ok := a.check(m, v); ok && err != nil {
			out = append(out, a.explain(m, v, loc)...)
		}
	}
	if len(s.AnyOf) > 0 {
		out = append(out, a.alternatives(s.AnyOf, v, loc, false)...)
	}
	if len(s.OneOf) > 0 {
		out = append(out, a.alternatives(s.OneOf, v, loc, true)...)
	}
	if len(out) > 0 {
		return out
	}
	if err, ok := a.check(s, v); ok && err != nil {
		return []violation{{loc: loc, line: fieldPrefix(loc) + keywordText(s, v, innermost(err))}}
	}
	return nil
}

// explainObject names missing required fields, unknown fields, and fields
// that fail their own subschema.
func (a *argSchema) explainObject(s *jsonschema.Schema, obj map[string]any, loc []string) []violation {
	var out []violation
	for _, r := range s.Required {
		if _, ok := obj[r]; !ok {
			out = append(out, violation{loc: loc, line: requiredLine(s, childLoc(loc, r))})
		}
	}
	closed := s.AdditionalProperties != nil && isFalse(s.AdditionalProperties)
	var unknown []string
	for k, val := range obj {
		sub := s.Properties[k]
		if sub == nil {
			for pat, ps := range s.PatternProperties {
				if re, err := regexp.Compile(pat); err == nil && re.MatchString(k) {
					sub = ps
					break
				}
			}
		}
		if sub == nil {
			if closed && len(s.PatternProperties) == 0 {
				unknown = append(unknown, k)
				continue
			}
			sub = s.AdditionalProperties
		}
		if sub == nil {
			continue
		}
		if err, ok := a.check(sub, val); ok && err != nil {
			out = append(out, a.explain(sub, val, childLoc(loc, k))...)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		line := fmt.Sprintf("unknown field %q", jsonPointer(childLoc(loc, k)))
		if names := propertyNames(s); len(names) > 0 {
			line += " (allowed fields: " + strings.Join(names, ", ") + ")"
		}
		out = append(out, violation{loc: loc, line: line})
	}
	return out
}

// isFalse reports whether s is the schema false (which decodes as
// {"not":{}}).
func isFalse(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// alternatives explains anyOf (or oneOf, when one is set). Alternatives
// that failed only on the value's type say little: report the ones that
// accepted the type but failed deeper, or else the types that would have
// been accepted.
func (a *argSchema) alternatives(alts []*jsonschema.Schema, v any, loc []string, one bool) []violation {
	var deeper []violation
	var wants []string
	matched := 0
	for _, alt := range alts {
		err, ok := a.check(alt, v)
		if !ok {
			return nil
		}
		if err == nil {
			matched++
			continue
		}
		errs := a.explain(alt, v, loc)
		if len(errs) == 1 && errs[0].wantType != nil && len(errs[0].loc) == len(loc) {
			wants = append(wants, errs[0].wantType...)
			continue
		}
		deeper = append(deeper, errs...)
	}
	switch {
	case matched == 1 || matched > 1 && !one:
		return nil
	case matched > 1:
		return []violation{{loc: loc, line: fieldPrefix(loc) + "matches more than one of the allowed forms"}}
	case len(deeper) == 0 && len(wants) > 0:
		return []violation{{loc: loc, wantType: wants, got: gotType(v)}}
	}
	return deeper
}

// innermost is the message of the keyword that failed, without the chain
// of schemas the library wraps it in.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// keywordText says what a failed keyword of s expected of v, in words the
// model can act on; a keyword not listed keeps the library's wording.
func keywordText(s *jsonschema.Schema, v any, libMsg string) string {
	keyword, _, _ := strings.Cut(libMsg, ":")
	str, _ := v.(string)
	arr, _ := v.([]any)
	switch keyword {
	case "enum":
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = jsonText(e)
		}
		return fmt.Sprintf("expected one of %s, got %s", strings.Join(vals, ", "), jsonText(v))
	case "const":
		if s.Const != nil {
			return fmt.Sprintf("expected %s, got %s", jsonText(*s.Const), jsonText(v))
		}
	case "minimum":
		return fmt.Sprintf("expected a number >= %s, got %s", numText(s.Minimum), jsonText(v))
	case "maximum":
		return fmt.Sprintf("expected a number <= %s, got %s", numText(s.Maximum), jsonText(v))
	case "exclusiveMinimum":
		return fmt.Sprintf("expected a number > %s, got %s", numText(s.ExclusiveMinimum), jsonText(v))
	case "exclusiveMaximum":
		return fmt.Sprintf("expected a number < %s, got %s", numText(s.ExclusiveMaximum), jsonText(v))
	case "multipleOf":
		return fmt.Sprintf("expected a multiple of %s, got %s", numText(s.MultipleOf), jsonText(v))
	case "minLength":
		return fmt.Sprintf("expected at least %d characters, got %d", deref(s.MinLength), utf8.RuneCountInString(str))
	case "maxLength":
		return fmt.Sprintf("expected at most %d characters, got %d", deref(s.MaxLength), utf8.RuneCountInString(str))
	case "pattern":
		return "expected a string matching " + s.Pattern
	case "minItems":
		return fmt.Sprintf("expected at least %d items, got %d", deref(s.MinItems), len(arr))
	case "maxItems":
		return fmt.Sprintf("expected at most %d items, got %d", deref(s.MaxItems), len(arr))
	case "uniqueItems":
		return "expected items that are all different"
	case "not":
		return "matches a form that is not allowed"
	}
	return libMsg
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
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

// requiredLine reports a missing field and what it should hold.
func requiredLine(parent *jsonschema.Schema, loc []string) string {
	msg := fmt.Sprintf("field %q is required", jsonPointer(loc))
	if want := expected(parent.Properties[loc[len(loc)-1]]); want != "" {
		msg += " (expected " + want + ")"
	}
	return msg
}

// expected describes what a schema accepts ("string", "one of …"), or ""
// when it does not say.
func expected(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Enum != nil {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = jsonText(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	types := schemaTypes(s)
	if len(types) == 0 {
		for _, alt := range append(append([]*jsonschema.Schema(nil), s.AnyOf...), s.OneOf...) {
			types = append(types, schemaTypes(alt)...)
		}
	}
	return strings.Join(types, " or ")
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

func numText(f *float64) string {
	if f == nil {
		return "?"
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}
