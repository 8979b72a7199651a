package templates

import (
	"fmt"
	"strings"
)

// AgentEntry is one role in list_agents output (seed 002's strict shape).
type AgentEntry struct {
	AgentType       string         `json:"agent_type"`
	Description     string         `json:"description"`
	AllowList       []string       `json:"allow_list"`
	DenyList        []string       `json:"deny_list"`
	Model           *string        `json:"model,omitempty"`
	ReasoningEffort *string        `json:"reasoning_effort,omitempty"`
	DefaultPrompt   *string        `json:"default_prompt,omitempty"`
	AgentNames      []PersonaEntry `json:"agent_names,omitempty"`
}

// PersonaEntry is one persona in list_agents output.
type PersonaEntry struct {
	Name            string  `json:"name"`
	Description     string  `json:"description"`
	Model           *string `json:"model,omitempty"`
	ReasoningEffort *string `json:"reasoning_effort,omitempty"`
	Prompt          *string `json:"prompt,omitempty"`
}

// ListAgentsResult is the list_agents payload.
type ListAgentsResult struct {
	Agents []AgentEntry `json:"agents"`
}

// ListAgents builds the list_agents result, enforcing the template
// invariants (description and default prompt are required).
func ListAgents(c *Catalog, agentType string, expanded bool) (ListAgentsResult, error) {
	var ts []*Template
	if strings.TrimSpace(agentType) != "" {
		t, err := c.Lookup(agentType)
		if err != nil {
			return ListAgentsResult{}, err
		}
		ts = []*Template{t}
	} else {
		ts = c.All()
	}
	res := ListAgentsResult{Agents: []AgentEntry{}}
	for _, t := range ts {
		if t.Description == "" {
			return ListAgentsResult{}, fmt.Errorf("template %s (%s) has no description: add `description:` to its frontmatter", t.AgentType, t.Source)
		}
		if t.DefaultPrompt == "" {
			return ListAgentsResult{}, fmt.Errorf("template %s (%s) has no default prompt: add text after the frontmatter, before the first <!-- agent_name: … --> block", t.AgentType, t.Source)
		}
		e := AgentEntry{AgentType: t.AgentType, Description: t.Description, AllowList: nonNil(t.AllowList), DenyList: nonNil(t.DenyList)}
		if expanded {
			m, r, p := t.Model, t.ReasoningEffort, t.DefaultPrompt
			e.Model, e.ReasoningEffort, e.DefaultPrompt = &m, &r, &p
		}
		for _, p := range t.Personas {
			pe := PersonaEntry{Name: p.Name, Description: p.Description}
			if expanded {
				m, r, pr := p.Model, p.ReasoningEffort, p.Prompt
				pe.Model, pe.ReasoningEffort, pe.Prompt = &m, &r, &pr
			}
			e.AgentNames = append(e.AgentNames, pe)
		}
		res.Agents = append(res.Agents, e)
	}
	return res, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
