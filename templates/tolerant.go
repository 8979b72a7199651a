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
	out := map[string]any{}
	var warnings []string
	lines := strings.Split(fm, "\n")
	seen := map[string]int{}
	var curKey string
	var curItems []any        // list value being built
	var curMap map[string]any // current list item map
	var block []string        // block scalar / continuation lines
	blockStyle := ""          // "|" or ">"
	flush := func() {
		if curKey == "" {
			return
		}
		switch {
		case blockStyle != "":
			sep := "\n"
			if blockStyle == ">" {
				sep = " "
			}
			out[curKey] = strings.Join(block, sep)
		case curItems != nil:
			out[curKey] = curItems
		}
		curKey, curItems, curMap, block, blockStyle = "", nil, nil, nil, ""
	}
	for i, raw := range lines {
		n := i + 2 // line number in the file (after the opening ---)
		line := strings.ReplaceAll(raw, "\t", "  ")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			if blockStyle != "" {
				block = append(block, "")
			}
			continue
		}
		m := keyLine.FindStringSubmatch(line)
		if m != nil && !knownKeys[m[1]] {
			// "user: …" inside a long description is text, not a new key.
			if s, ok := out[curKey].(string); ok && curKey != "" && blockStyle == "" {
				out[curKey] = s + " " + trimmed
				warnings = append(warnings, fmt.Sprintf("%s:%d: %q is not a frontmatter key; joined it to %s", path, n, m[1], curKey))
				continue
			}
		}
		if m != nil && !strings.HasPrefix(line, " ") {
			flush()
			key, val := m[1], strings.TrimSpace(m[2])
			if prev, dup := seen[key]; dup {
				warnings = append(warnings, fmt.Sprintf("%s:%d: duplicate key %q (first on line %d); the last one wins", path, n, key, prev))
			}
			seen[key] = n
			curKey = key
			switch {
			case val == "|" || val == ">" || val == "|-" || val == ">-":
				blockStyle = val[:1]
			case val == "":
				curItems = []any{}
			default:
				out[key] = unquote(val)
				if strings.Contains(val, ": ") && !strings.HasPrefix(val, `"`) && !strings.HasPrefix(val, "'") {
					warnings = append(warnings, fmt.Sprintf("%s:%d: unquoted \": \" in %s; read it as plain text", path, n, key))
				}
				blockStyle = ""
				// Keep the key current so unindented continuation lines join it.
				curItems = nil
			}
			continue
		}
		if curKey == "" {
			warnings = append(warnings, fmt.Sprintf("%s:%d: skipped line outside any key: %q", path, n, trimmed))
			continue
		}
		if blockStyle != "" {
			block = append(block, trimmed)
			continue
		}
		if m := itemLine.FindStringSubmatch(line); m != nil && curItems != nil {
			item := strings.TrimSpace(m[1])
			if km := keyLine.FindStringSubmatch(item); km != nil {
				curMap = map[string]any{km[1]: unquote(strings.TrimSpace(km[2]))}
				curItems = append(curItems, curMap)
			} else {
				curMap = nil
				curItems = append(curItems, unquote(item))
			}
			continue
		}
		if m := subKey.FindStringSubmatch(line); m != nil && curMap != nil {
			curMap[m[1]] = unquote(strings.TrimSpace(m[2]))
			continue
		}
		// A continuation line of a scalar value (multi-line, unindented).
		if s, ok := out[curKey].(string); ok {
			out[curKey] = s + " " + trimmed
			warnings = append(warnings, fmt.Sprintf("%s:%d: joined continuation line to %s", path, n, curKey))
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s:%d: skipped unreadable line %q", path, n, trimmed))
	}
	flush()
	for k, v := range out {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			out[k] = list(s)
		}
	}
	return out, warnings, nil
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
