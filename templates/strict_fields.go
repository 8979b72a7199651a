package templates

import (
	"fmt"
	"regexp"
	"strings"
)

// The frontmatter fields that restrict an agent (sandbox and tools) are
// read strictly: a value or key grove cannot read for certain refuses the
// template rather than silently yielding a writable agent or every tool.

// policyKeys are the restricting keys of both formats.
var policyKeys = []string{"read_only", "allow_list", "deny_list", "tools", "disallowedTools"}

// policyAliases are other spellings people use for them (canonical form,
// see canonicalKey), e.g. the Claude Agent SDK's allowedTools.
var policyAliases = map[string]string{
	"allowedtools": "tools", "allowtools": "tools", "deniedtools": "disallowedTools",
	"denytools": "disallowedTools", "allowlists": "allow_list", "denylists": "deny_list",
	"readonlymode": "read_only",
}

var topKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:`)

// keyLines maps each top-level frontmatter key to its file line (the last
// occurrence, which is the one that counts).
func keyLines(fm string, fmLine int) map[string]int {
	out := map[string]int{}
	for i, l := range strings.Split(fm, "\n") {
		if m := topKey.FindStringSubmatch(l); m != nil {
			out[m[1]] = fmLine + i
		}
	}
	return out
}

// checkNearMissKeys refuses a template with a misspelt restricting key
// (`readonly: true`, `allowList: […]`, `tool: Read`): ignored, it would
// give the agent a writable sandbox or every tool.
func checkNearMissKeys(path string, fields map[string]any, lines map[string]int) error {
	seen := map[string]bool{}
	for k := range fields {
		seen[k] = true
	}
	for k := range lines {
		seen[k] = true
	}
	var worst *ParseError
	for k := range seen {
		want, ok := nearMiss(k)
		if !ok {
			continue
		}
		pe := &ParseError{Path: path, Line: lines[k], Msg: fmt.Sprintf("unknown key %q: did you mean %q? A misspelt %s would be ignored, so this template is refused", k, want, want)}
		if worst == nil || pe.Line < worst.Line {
			worst = pe
		}
	}
	if worst != nil {
		return worst
	}
	return nil
}

// nearMiss reports which restricting key k looks like a misspelling of.
func nearMiss(k string) (string, bool) {
	if knownKeys[k] {
		return "", false
	}
	c := canonicalKey(k)
	if p, ok := policyAliases[c]; ok {
		return p, true
	}
	for _, p := range policyKeys {
		pc := canonicalKey(p)
		if c == pc || editDistance(c, pc) <= 1 {
			return p, true
		}
	}
	return "", false
}

// canonicalKey folds case and separators: read_only, read-only, readOnly
// and ReadOnly are one key.
func canonicalKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(k))
}

// editDistance is the optimal-string-alignment distance of two short
// ASCII keys: edits and swaps of neighbours (read_onyl) count one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// readOnlyValue reads read_only: a YAML boolean, or the words true/false,
// yes/no, on/off. Anything else (1, banana, an empty value) is an error.
func readOnlyValue(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "on":
			return true, nil
		case "false", "no", "off":
			return false, nil
		}
		return false, fmt.Errorf("read_only must be true or false, not %q; the template is refused rather than run writable", x)
	case nil:
		return false, fmt.Errorf("read_only has no value; write read_only: true or read_only: false")
	}
	return false, fmt.Errorf("read_only must be true or false, not %v; the template is refused rather than run writable", v)
}

// noToolsIfAllowListEmpty makes an allow list that was given but names no
// tool (`allow_list: []`, or Claude `tools: WebFetch, WebSearch`, which
// have no grove equivalent) mean no tools, never "no policy" (every tool).
// Deny-all is what persists in the rollout, so a resumed agent keeps it.
func (t *Template) noToolsIfAllowListEmpty(fields map[string]any, lines map[string]int) {
	key := "allow_list"
	if t.Format == "claude" {
		key = "tools"
	}
	v, given := fields[key]
	if !given || len(t.AllowList) > 0 {
		return
	}
	t.AllowList = nil
	t.DenyList = append(t.DenyList, "*")
	what := "is empty"
	if names := list(v); len(names) > 0 {
		what = fmt.Sprintf("(%s) names no grove tool", strings.Join(names, ", "))
	}
	t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: %s %s: this role gets no tools (omit %s to give it every tool)", t.Source, lines[key], key, what, key))
}
