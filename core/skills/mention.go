package skills

import (
	"fmt"
	"regexp"
)

// mentionRE finds $name in user text: a $ at the start or after a
// non-word character, then a skill-name-like token.
var mentionRE = regexp.MustCompile(`(?:^|[^\w$])\$([A-Za-z0-9][A-Za-z0-9_.:-]*)`)

// Mentioned returns the catalog's skills text names as $name, once each,
// in order; $WORDS that are no skill (a shell $HOME) are ignored.
func (c Catalog) Mentioned(text string) []Skill {
	var out []Skill
	seen := map[string]bool{}
	for _, m := range mentionRE.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if seen[name] {
			continue
		}
		if s, ok := c.Lookup(name); ok {
			seen[name] = true
			out = append(out, s)
		}
	}
	return out
}

// Injection is the message that gives the model a mentioned skill's
// body (Codex's <skill> fragment).
func Injection(s Skill) (string, error) {
	body, err := s.Body()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("<skill>\n<name>%s</name>\n<path>%s</path>\n%s\n</skill>", s.Name, s.Path, body), nil
}
