package skills

import (
	"fmt"
	"strings"
)

// BudgetShare is the part of the context window the skills list may use
// (Codex: about 2%).
const BudgetShare = 0.02

// charsPerToken converts the token budget to characters (a common
// estimate for English text and paths).
const charsPerToken = 4

// BudgetChars is the list's budget for a context window of n tokens.
func BudgetChars(contextWindow int) int {
	return int(float64(contextWindow) * BudgetShare * charsPerToken)
}

const intro = `## Skills
A skill is a folder of instructions (SKILL.md, maybe with scripts/, references/, assets/) for one kind of task. The skills available here are listed with what they are for and where their SKILL.md is.
### Available skills
`

const howTo = `### How to use skills
- When the user names a skill ($name) or the task clearly matches a skill's description, use it for this turn. A skill the user mentioned with $name is already loaded in the conversation.
- Otherwise, to use a skill, read its SKILL.md with read_file first (only as much as you need), then follow it; load files it points to only when needed, and prefer running its scripts to retyping them.
- Say in one line which skill you use and why. If a skill cannot be read or applied, say so and continue without it.`

// Render writes the skills section of the instructions within budget
// characters: every skill's name, description and path; when that is too
// long, descriptions are shortened first (all to the same length), and
// only when names and paths alone do not fit are the farthest skills left
// out, with a line saying how many. Empty when there are none.
func Render(skills []Skill, budget int) string {
	if len(skills) == 0 {
		return ""
	}
	fixed := len(intro) + len(howTo)
	room := budget - fixed
	line := func(s Skill, descMax int) string {
		d := s.Description
		if len(d) > descMax {
			d = strings.TrimSpace(d[:max(descMax-1, 0)]) + "…"
			if descMax == 0 {
				d = ""
			}
		}
		if d == "" {
			return fmt.Sprintf("- %s (file: %s)\n", s.Name, s.Path)
		}
		return fmt.Sprintf("- %s: %s (file: %s)\n", s.Name, d, s.Path)
	}
	size := func(n, descMax int) int {
		total := 0
		for _, s := range skills[:n] {
			total += len(line(s, descMax))
		}
		return total
	}
	n, descMax := len(skills), MaxDescriptionLen
	if size(n, descMax) > room {
		// The longest description length that fits, by bisection.
		lo, hi := 0, MaxDescriptionLen
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if size(n, mid) <= room {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		descMax = lo
		for n > 0 && size(n, descMax) > room {
			n--
		}
	}
	var b strings.Builder
	b.WriteString(intro)
	for _, s := range skills[:n] {
		b.WriteString(line(s, descMax))
	}
	if n < len(skills) {
		fmt.Fprintf(&b, "- (%d more skills not listed: the list is limited to %d characters)\n", len(skills)-n, budget)
	}
	b.WriteString(howTo)
	return b.String()
}
