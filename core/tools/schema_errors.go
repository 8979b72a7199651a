package tools

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
)

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
func requiredLine(parent *argSchema, loc []string) string {
	msg := fmt.Sprintf("field %q is required", jsonPointer(loc))
	if want := parent.properties[loc[len(loc)-1]].expected(); want != "" {
		msg += " (expected " + want + ")"
	}
	return msg
}

// expected describes what a schema accepts ("string", "one of …"), or ""
// when it does not say.
func (s *argSchema) expected() string {
	if s == nil {
		return ""
	}
	if s.enum != nil {
		vals := make([]string, len(s.enum))
		for i, v := range s.enum {
			vals[i] = jsonText(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	types := s.types
	if len(types) == 0 {
		for _, a := range append(append([]*argSchema(nil), s.anyOf...), s.oneOf...) {
			types = append(types, a.types...)
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
