package tui

import (
	"strings"
)

// welcomeLines is the card a new session opens with: what runs (model,
// provider), under which rules (sandbox, approval policy), where, and how
// to get help. It shows until the first message.
func (m Model) welcomeLines(w int) []string {
	k, d := m.th.key.Render, m.th.dim.Render
	inner := max(1, min(w, maxCardWidth)-4)
	model := m.info.Model
	if m.info.Provider != "" {
		model += d(" · " + m.info.Provider)
	}
	if m.info.Demo {
		model += d(" (offline demo model)")
	}
	sandbox, policy := string(m.info.SandboxMode), string(m.info.ApprovalPolicy)
	if sandbox == "" {
		sandbox = "default"
	}
	if policy == "" {
		policy = "default"
	}
	rows := []string{
		m.th.cardTitle.Render("Welcome to grove"),
		d("model     ") + model,
		d("sandbox   ") + sandbox,
		d("approvals ") + policy,
		d("cwd       ") + shortenHome(m.cwd()),
		"",
		k("?") + " help  " + k("/") + " commands  " + k("tab") + " agent tree  " + k("ctrl+t") + " agents",
	}
	for i, r := range rows {
		rows[i] = clipANSI(r, inner)
	}
	if w < 24 {
		return rows // no room for a border
	}
	box := m.th.card.Width(inner + 4).Render(strings.Join(rows, "\n"))
	return strings.Split(box, "\n")
}

// cwd is the focused agent's working directory (the session's when it has
// none of its own).
func (m Model) cwd() string {
	if t := m.sess.threads[m.focused]; t != nil && t.info.Cwd != "" {
		return t.info.Cwd
	}
	return m.info.Cwd
}

// showsWelcome reports a transcript with nothing in it yet.
func showsWelcome(t *threadView, root bool) bool {
	if !root || len(t.queued) > 0 || t.streaming != nil {
		return false
	}
	for _, e := range t.entries {
		if e.kind != entryWarning {
			return false // the opening's warnings sit under the card
		}
	}
	return true
}
