package tui

import (
	"regexp"
	"strings"
)

// A message that names a skill as $name loads that skill for the agent
// (core/skills); the transcript says which ones it attached (issue 35
// item 29), live and resumed alike: live from the message's $names, resumed
// from the <skill> notices the engine gave the model.

// skillMentionRE is core/skills' mention rule: $ after the start or a
// non-word character, then a skill-name-like token.
var skillMentionRE = regexp.MustCompile(`(?:^|[^\w$])\$([A-Za-z0-9][A-Za-z0-9_.:-]*)`)

// skillNameRE finds the skill's name in the engine's <skill> notice.
var skillNameRE = regexp.MustCompile(`^<skill>\s*<name>([^<]*)</name>`)

// skillLine is the transcript's line for a skill attached to a message
// (one a skill, as the engine gives the model one notice a skill).
func skillLine(name string) string {
	return "◆ skill attached: " + name
}

// noteSkills adds a line for each of the session's skills text mentions,
// once each, in order.
func (s *session) noteSkills(t *threadView, text string) {
	if len(s.skills) == 0 || !strings.Contains(text, "$") {
		return
	}
	seen := map[string]bool{}
	for _, m := range skillMentionRE.FindAllStringSubmatch(text, -1) {
		if n := m[1]; s.skills[n] && !seen[n] {
			seen[n] = true
			t.add(&entry{kind: entryInfo, text: skillLine(n)})
		}
	}
}

// skillNotice is the skill a grove notice attached ("" for another
// notice); a resumed history shows it as the live line, not the body.
func skillNotice(content string) string {
	if m := skillNameRE.FindStringSubmatch(content); m != nil {
		return m[1]
	}
	return ""
}
