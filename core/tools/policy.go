package tools

import "path"

// Policy is a role template's tool policy (allow_list / deny_list). Entries
// are exact names or globs with path.Match syntax (`*`, `?`, `[…]`), case
// sensitive. Deny wins over allow; with an allow list only matching tools
// are allowed; with neither list there is no policy and every tool is.
type Policy struct {
	Allow, Deny []string
}

// Allowed reports whether the policy lets an agent use the tool name. A
// core tool is also named by its equivalents in the other tool set (see
// Equivalents): `deny_list: [apply_patch]` denies Edit, `allow_list:
// [Read]` allows read_file.
func (p Policy) Allowed(name string) bool {
	if matchAny(p.Deny, name) || matchAnyOf(p.Deny, Equivalents(name)) {
		return false
	}
	return len(p.Allow) == 0 || matchAny(p.Allow, name) || matchAnyOf(p.Allow, Equivalents(name))
}

// matchAnyOf reports whether one of names matches one of the patterns.
func matchAnyOf(patterns, names []string) bool {
	for _, n := range names {
		if matchAny(patterns, n) {
			return true
		}
	}
	return false
}

// matchAny reports whether name equals or matches one of the patterns; a
// malformed glob only matches itself.
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
