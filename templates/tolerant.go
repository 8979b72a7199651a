package templates

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	keyLine  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$`)
	itemLine = regexp.MustCompile(`^[ \t]*-[ \t]*(.*)$`)
	subKey   = regexp.MustCompile(`^[ \t]+([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$`)
)

// knownKeys are the frontmatter keys of both formats.
var knownKeys = map[string]bool{
	"name": true, "description": true, "model": true, "reasoning_effort": true, "read_only": true,
	"agent_names": true, "allow_list": true, "deny_list": true, "tools": true, "disallowedTools": true,
	"color": true, "permissionMode": true, "skills": true, "surface": true, "host": true,
}

// tolerantRead reads real-world sloppy frontmatter key by key: tabs,
// duplicate keys (last wins), unquoted ": " inside values, multi-line
// values without indentation, comma strings and simple lists of maps.
func tolerantRead(path, fm string) (map[string]any, []string, error) {
	r := &sloppyReader{path: path, out: map[string]any{}, seen: map[string]int{}}
	for i, raw := range strings.Split(fm, "\n") {
		r.line(i+2, strings.ReplaceAll(raw, "\t", "  ")) // line number in the file (after the opening ---)
	}
	r.flush()
	for k, v := range r.out {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			r.out[k] = list(s)
		}
	}
	return r.out, r.warnings, nil
}

// sloppyReader is tolerantRead's state: the key being read and what its value is so far.
type sloppyReader struct {
	path       string
	out        map[string]any
	warnings   []string
	seen       map[string]int // key → the line it was first seen on
	curKey     string
	curItems   []any          // list value being built
	curMap     map[string]any // current list item map
	block      []string       // block scalar / continuation lines
	blockStyle string         // "|" or ">"
}

func (r *sloppyReader) warn(n int, format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf("%s:%d: ", r.path, n)+fmt.Sprintf(format, args...))
}

// flush stores the value of the key being read (a block scalar or a list).
func (r *sloppyReader) flush() {
	if r.curKey == "" {
		return
	}
	switch {
	case r.blockStyle != "":
		sep := "\n"
		if r.blockStyle == ">" {
			sep = " "
		}
		r.out[r.curKey] = strings.Join(r.block, sep)
	case r.curItems != nil:
		r.out[r.curKey] = r.curItems
	}
	r.curKey, r.curItems, r.curMap, r.block, r.blockStyle = "", nil, nil, nil, ""
}

// line reads line n of the frontmatter.
func (r *sloppyReader) line(n int, line string) {
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		if r.blockStyle != "" {
			r.block = append(r.block, "")
		}
		return
	}
	m := keyLine.FindStringSubmatch(line)
	if m != nil && !knownKeys[m[1]] {
		// "user: …" inside a long description is text, not a new key.
		if s, ok := r.out[r.curKey].(string); ok && r.curKey != "" && r.blockStyle == "" {
			r.out[r.curKey] = s + " " + trimmed
			r.warn(n, "%q is not a frontmatter key; joined it to %s", m[1], r.curKey)
			return
		}
	}
	if m != nil && !strings.HasPrefix(line, " ") {
		r.key(n, m[1], strings.TrimSpace(m[2]))
		return
	}
	r.valueLine(n, line, trimmed)
}

// key starts a new top-level key with its value on the same line (or none).
func (r *sloppyReader) key(n int, key, val string) {
	r.flush()
	if prev, dup := r.seen[key]; dup {
		r.warn(n, "duplicate key %q (first on line %d); the last one wins", key, prev)
	}
	r.seen[key] = n
	r.curKey = key
	switch {
	case val == "|" || val == ">" || val == "|-" || val == ">-":
		r.blockStyle = val[:1]
	case val == "":
		r.curItems = []any{}
	default:
		r.out[key] = unquote(val)
		if strings.Contains(val, ": ") && !strings.HasPrefix(val, `"`) && !strings.HasPrefix(val, "'") {
			r.warn(n, "unquoted \": \" in %s; read it as plain text", key)
		}
		r.blockStyle = ""
		// Keep the key current so unindented continuation lines join it.
		r.curItems = nil
	}
}

// valueLine reads a line that continues the current key: a block line, a list item, an
// item's sub-key or a scalar's continuation.
func (r *sloppyReader) valueLine(n int, line, trimmed string) {
	if r.curKey == "" {
		r.warn(n, "skipped line outside any key: %q", trimmed)
		return
	}
	if r.blockStyle != "" {
		r.block = append(r.block, trimmed)
		return
	}
	if m := itemLine.FindStringSubmatch(line); m != nil && r.curItems != nil {
		item := strings.TrimSpace(m[1])
		if km := keyLine.FindStringSubmatch(item); km != nil {
			r.curMap = map[string]any{km[1]: unquote(strings.TrimSpace(km[2]))}
			r.curItems = append(r.curItems, r.curMap)
		} else {
			r.curMap = nil
			r.curItems = append(r.curItems, unquote(item))
		}
		return
	}
	if m := subKey.FindStringSubmatch(line); m != nil && r.curMap != nil {
		r.curMap[m[1]] = unquote(strings.TrimSpace(m[2]))
		return
	}
	// A continuation line of a scalar value (multi-line, unindented).
	if s, ok := r.out[r.curKey].(string); ok {
		r.out[r.curKey] = s + " " + trimmed
		r.warn(n, "joined continuation line to %s", r.curKey)
		return
	}
	r.warn(n, "skipped unreadable line %q", trimmed)
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	// Strip a trailing comment.
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
