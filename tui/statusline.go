package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/grovecli/grove/protocol"
)

func (m Model) statusLine() string {
	var parts []string
	if m.flash != "" {
		return padRight(m.th.warn.Render(" "+m.flash), m.w)
	}
	running := 0
	total := protocol.TokenUsage{}
	for _, t := range m.sess.threads {
		if t.status.IsActive() {
			running++
		}
		total.Add(t.usage)
	}
	if m.backend != nil {
		// Pending approvals come first: what is cut when room runs out is
		// the end of the line, and this is the field that must show.
		if n := len(m.appr.queue); n > 0 {
			parts = append(parts, m.th.warn.Render(plural(n, "approval")+" waiting"))
		}
		mdl := m.info.Model
		if t := m.sess.threads[m.focused]; t != nil && t.info.ReasoningEffort != "" {
			mdl += " " + t.info.ReasoningEffort // the focused agent's effort, shown (item 20)
		}
		parts = append(parts, mdl+" · "+m.info.Provider)
		parts = append(parts, m.location()) // the focused agent's
		if t := m.sess.threads[m.focused]; t != nil {
			if g, warn := m.contextGauge(t); warn {
				parts = append(parts, m.th.warn.Render(g))
			} else if g != "" {
				parts = append(parts, g)
			}
			// Every number says what it counts (issue 35 item 6).
			parts = append(parts, fmt.Sprintf("%s %s · all %s tok", t.name(), humanTokens(t.usage.TotalTokens), humanTokens(total.TotalTokens))+m.statusCost())
		}
		parts = append(parts, fmt.Sprintf("%d running", running))
	}
	hints := keys.ShortHelp()
	if m.w < 100 {
		hints = keys.narrowHelp()
	}
	left := " " + strings.Join(parts, m.th.dim.Render(" │ "))
	helpLine := m.helpView(m.th.statusKey).ShortHelpView(hints)
	if len(m.sess.review.patches) > 0 {
		// The diff hint is offered only where it costs the session details
		// nothing (help and the / menu always list it).
		withDiff := m.helpView(m.th.statusKey).ShortHelpView(append([]key.Binding{hint(keys.DiffReview, "diff")}, hints...))
		if lipglossWidth(left)+lipglossWidth(withDiff)+2 <= m.w {
			helpLine = withDiff
		}
	}
	// The hints stay; the session details give way (cut with an ellipsis).
	room := m.w - lipglossWidth(helpLine) - 2
	if room < 10 {
		return padRight(m.th.status.Render(left), m.w)
	}
	if lipglossWidth(left) > room {
		left = padRight(left, room)
	}
	gap := m.w - lipglossWidth(left) - lipglossWidth(helpLine) - 1
	return m.th.status.Render(left) + strings.Repeat(" ", max(0, gap)) + helpLine + " "
}

func shortenHome(p string) string {
	if h, err := os.UserHomeDir(); err == nil && h != "" && strings.HasPrefix(p, h) {
		return "~" + strings.TrimPrefix(p, h)
	}
	return shortenPath(p)
}

// shortenPath keeps a long path's last two elements.
func shortenPath(p string) string {
	if len(p) > 40 {
		return "…" + filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
	}
	return p
}

func humanTokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
