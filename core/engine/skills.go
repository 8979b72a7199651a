package engine

import (
	"strings"

	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/protocol"
)

// skillPrefix marks a skill in a template's allow/deny lists
// ("skill:gh-*"), so skills are allowed and denied per template like tools.
const skillPrefix = "skill:"

// skillCatalog is the catalog t's template allows.
func (t *Thread) skillCatalog() skills.Catalog {
	var allow, deny []string
	for _, a := range t.allow {
		if n, ok := strings.CutPrefix(a, skillPrefix); ok {
			allow = append(allow, n)
		}
	}
	for _, d := range t.deny {
		if n, ok := strings.CutPrefix(d, skillPrefix); ok {
			deny = append(deny, n)
		}
		if d == "*" {
			deny = append(deny, "*") // a template with no tools has no skills either
		}
	}
	return t.e.opts.Skills.Filter(allow, deny)
}

// skillsSection lists t's skills (names, descriptions, paths; never
// bodies) within the budget, for its instructions. The model activates
// one by reading its SKILL.md with read_file, a call the transcript shows.
func (t *Thread) skillsSection() string {
	budget := t.e.opts.SkillsBudget
	if budget <= 0 {
		budget = skills.BudgetChars(DefaultContextWindow)
	}
	return skills.Render(t.skillCatalog().Skills, budget)
}

// DefaultContextWindow is the context window assumed for the skills
// budget when the configuration names none (model_context_window).
const DefaultContextWindow = 128000

// mentionedSkills loads the body of every skill the input names as
// $name, for the conversation after the input. A body that cannot be
// read is a warning, and the turn goes on.
func (t *Thread) mentionedSkills(turnID string, input []queuedInput) []protocol.Item {
	if len(t.e.opts.Skills.Skills) == 0 {
		return nil
	}
	var text []string
	for _, q := range input {
		text = append(text, q.item.Content)
	}
	var out []protocol.Item
	for _, s := range t.skillCatalog().Mentioned(strings.Join(text, "\n")) {
		body, err := skills.Injection(s)
		if err != nil {
			t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: err.Error()}))
			continue
		}
		out = append(out, protocol.GroveNotice(body))
	}
	return out
}
