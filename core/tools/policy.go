package tools

import "path"

// Policy is a template's tool policy: exact names or globs (`*`, `?`),
// case-sensitive; deny wins; with neither list everything is allowed; with
// an allow list only matching tools are.
type Policy struct {
	Allow, Deny []string
}

// Allowed reports whether the policy lets a tool be used.
func (p Policy) Allowed(name string) bool {
	if matchAny(p.Deny, name) {
		return false
	}
	if len(p.Allow) == 0 {
		return true
	}
	return matchAny(p.Allow, name)
}

func matchAny(patterns []string, name string) bool {
	for _, pat := range patterns {
		if pat == name {
			return true
		}
		if ok, err := path.Match(pat, name); err == nil && ok {
			return true
		}
	}
	return false
}
