package hooks

import (
	"regexp"
	"strings"
)

// Codex's matcher rules: absent, "" or "*" match everything; a string of
// letters, digits, '_' and '|' is a list of exact names ("Edit|Write"); any
// other string is a regular expression searched in the name ("^Bash").

func isMatchAll(m string) bool { return m == "" || m == "*" }

func isExact(m string) bool {
	for _, r := range m {
		if !(r == '_' || r == '|' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func validateMatcher(m string) error {
	if isMatchAll(m) || isExact(m) {
		return nil
	}
	_, err := regexp.Compile(m)
	return err
}

// matches reports whether matcher selects any of inputs (a tool's name
// first, then its aliases: apply_patch also answers to Write and Edit).
func matches(matcher *string, inputs []string) bool {
	if matcher == nil || isMatchAll(*matcher) {
		return true
	}
	m := *matcher
	if isExact(m) {
		for _, in := range inputs {
			for _, c := range strings.Split(m, "|") {
				if c == in {
					return true
				}
			}
		}
		return false
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return false
	}
	for _, in := range inputs {
		if re.MatchString(in) {
			return true
		}
	}
	return false
}
