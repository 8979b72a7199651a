package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// agentCost is a thread's estimated cost from its usage (replayed on
// resume, so it survives one) and its model's price; false when the model
// has no price or it used no tokens.
func (m *Model) agentCost(t *threadView) (float64, bool) {
	if m.opts.Cost == nil || t.usage == (protocol.TokenUsage{}) {
		return 0, false
	}
	return m.opts.Cost(t.info.Model, t.usage)
}

// sessionCost sums the priced agents' costs; unpriced names the models of
// agents that used tokens without a price (their cost is not guessed).
func (m *Model) sessionCost() (usd float64, priced bool, unpriced []string) {
	if m.opts.Cost == nil {
		return 0, false, nil // no pricing wired: no cost line at all
	}
	seen := map[string]bool{}
	for _, t := range m.sess.threads {
		if t.usage == (protocol.TokenUsage{}) {
			continue
		}
		if c, ok := m.agentCost(t); ok {
			usd, priced = usd+c, true
		} else if !seen[t.info.Model] {
			seen[t.info.Model] = true
			unpriced = append(unpriced, t.info.Model)
		}
	}
	sort.Strings(unpriced)
	return usd, priced, unpriced
}

// costWords is a session's cost: the priced agents' sum, and the models
// left out of it.
func costWords(usd float64, priced bool, unpriced []string) string {
	var parts []string
	if priced {
		parts = append(parts, formatUSD(usd))
	}
	if len(unpriced) > 0 {
		names := make([]string, len(unpriced))
		for i, n := range unpriced {
			names[i] = n
			if n == "" {
				names[i] = "(unknown model)"
			}
		}
		parts = append(parts, "no price for "+strings.Join(names, ", "))
	}
	return strings.Join(parts, " + ")
}

// formatUSD shows cents, and more digits for small sums (an agent's few
// hundred tokens cost a fraction of a cent).
func formatUSD(usd float64) string {
	if usd >= 1 || usd == 0 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.4f", usd)
}

// tokensCell is an agent's tokens in the Ctrl+T table, with its cost when
// the window is wide enough to show it (the usage line always does).
func (m *Model) tokensCell(t *threadView) string {
	s := humanTokens(t.usage.TotalTokens)
	if c, ok := m.agentCost(t); ok && m.w >= 120 {
		s += " " + formatUSD(c)
	}
	return s
}

// statusCost is the session's cost for the status line (" · $0.0782"):
// "≥" when agents on unpriced models used tokens too; "" with no price.
func (m *Model) statusCost() string {
	usd, priced, unpriced := m.sessionCost()
	if !priced {
		return ""
	}
	if len(unpriced) > 0 {
		return " · ≥" + formatUSD(usd)
	}
	return " · " + formatUSD(usd)
}
