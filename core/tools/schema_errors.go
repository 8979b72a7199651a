package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var schemaPrinter = message.NewPrinter(language.English)

// describeSchemaError turns a jsonschema validation error tree into short
// lines, each naming the offending field as a JSON pointer and saying what
// was expected (`field "timeout_ms": expected integer, got string`). doc is
// the decoded schema, consulted for what a missing field should hold.
func describeSchemaError(err error, doc any) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var lines []string
	collectSchemaErrors(ve, doc, &lines)
	if len(lines) == 0 {
		return ve.Error()
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

func collectSchemaErrors(e *jsonschema.ValidationError, doc any, lines *[]string) {
	add := func(loc []string, format string, args ...any) {
		*lines = append(*lines, fieldPrefix(loc)+fmt.Sprintf(format, args...))
	}
	loc := e.InstanceLocation
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		// Alternatives that failed only on the value's type say little:
		// report the ones that accepted the type but failed deeper, or else
		// the types that would have been accepted.
		var deeper []*jsonschema.ValidationError
		var wants []string
		got := ""
		for _, c := range e.Causes {
			if t, ok := c.ErrorKind.(*kind.Type); ok && samePath(c.InstanceLocation, loc) {
				wants = append(wants, t.Want...)
				got = t.Got
				continue
			}
			deeper = append(deeper, c)
		}
		if len(deeper) == 0 && len(wants) > 0 {
			add(loc, "expected %s, got %s", strings.Join(wants, " or "), got)
			return
		}
		for _, c := range deeper {
			collectSchemaErrors(c, doc, lines)
		}
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectSchemaErrors(c, doc, lines)
		}
		return
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		if len(loc) == 0 {
			add(loc, "arguments must be a JSON %s, got %s", strings.Join(k.Want, " or "), k.Got)
			return
		}
		add(loc, "expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Required:
		for _, m := range k.Missing {
			p := append(append([]string(nil), loc...), m)
			msg := fmt.Sprintf("field %q is required", jsonPointer(p))
			if want := expectedAt(doc, p); want != "" {
				msg += " (expected " + want + ")"
			}
			*lines = append(*lines, msg)
		}
	case *kind.AdditionalProperties:
		allowed := propertyNames(schemaAt(doc, loc))
		for _, p := range k.Properties {
			msg := fmt.Sprintf("unknown field %q", jsonPointer(append(append([]string(nil), loc...), p)))
			if len(allowed) > 0 {
				msg += " (allowed fields: " + strings.Join(allowed, ", ") + ")"
			}
			*lines = append(*lines, msg)
		}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		add(loc, "expected one of %s, got %s", strings.Join(want, ", "), jsonText(k.Got))
	case *kind.Const:
		add(loc, "expected %s, got %s", jsonText(k.Want), jsonText(k.Got))
	case *kind.Minimum:
		add(loc, "expected a number >= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.Maximum:
		add(loc, "expected a number <= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMinimum:
		add(loc, "expected a number > %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMaximum:
		add(loc, "expected a number < %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.MinLength:
		add(loc, "expected at least %d characters, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		add(loc, "expected at most %d characters, got %d", k.Want, k.Got)
	case *kind.MinItems:
		add(loc, "expected at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		add(loc, "expected at most %d items, got %d", k.Want, k.Got)
	default:
		add(loc, "%s", e.ErrorKind.LocalizedString(schemaPrinter))
	}
}

func fieldPrefix(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return fmt.Sprintf("field %q: ", jsonPointer(loc))
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonPointer renders an instance location as an RFC 6901 pointer without
// its leading slash ("plan/0/status"), which reads better in a sentence.
func jsonPointer(loc []string) string {
	esc := make([]string, len(loc))
	for i, s := range loc {
		esc[i] = pointerEscaper.Replace(s)
	}
	return strings.Join(esc, "/")
}

func samePath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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

func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}

// schemaAt walks a decoded schema along an instance location (properties
// for names, items for indexes); nil when the schema does not describe it.
func schemaAt(doc any, loc []string) map[string]any {
	cur, _ := doc.(map[string]any)
	for _, seg := range loc {
		if cur == nil {
			return nil
		}
		if props, ok := cur["properties"].(map[string]any); ok {
			if next, ok := props[seg].(map[string]any); ok {
				cur = next
				continue
			}
		}
		next, _ := cur["items"].(map[string]any)
		cur = next
	}
	return cur
}

// expectedAt describes what the schema wants at loc ("string", "one of
// …"), or "" when it does not say.
func expectedAt(doc any, loc []string) string {
	s := schemaAt(doc, loc)
	if s == nil {
		return ""
	}
	if enum, ok := s["enum"].([]any); ok {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = jsonText(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	types := typeNames(s)
	if alts, ok := s["anyOf"].([]any); ok && len(types) == 0 {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				types = append(types, typeNames(m)...)
			}
		}
	}
	return strings.Join(types, " or ")
}

func typeNames(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if n, ok := v.(string); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

func propertyNames(s map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for n := range props {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
