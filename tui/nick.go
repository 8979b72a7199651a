package tui

import "github.com/grovecli/grove/protocol"

// Sixteen workers must not look alike (issue 35 item 7): every sub-agent
// has a short name unique in the session, as Codex gives its sub-agents
// nicknames. The engine gives it at spawn and records it (ThreadInfo's
// Nickname, core/engine/nickname.go), so the app-server's agentNickname and
// this screen say the same name, and a resumed session shows the names it
// had. The role stays beside it: "Euclid (worker)".

// name is how the TUI calls a thread everywhere: "root", else its
// nickname.
func (t *threadView) name() string {
	if t.info.ParentID == "" || t.info.Nickname == "" {
		return roleLabel(t.info)
	}
	return t.info.Nickname
}

// fullName is the nickname with the role: "Euclid (worker)"; the root is
// just "root" (not "root (default)", which reads like a setting).
func (t *threadView) fullName() string {
	if t.info.ParentID == "" || t.info.Nickname == "" {
		return roleLabel(t.info)
	}
	role := t.info.AgentType
	if role == "" {
		role = "default"
	}
	return t.info.Nickname + " (" + role + ")"
}

// agentName names thread t ("agent" when unknown).
func agentName(s *session, t *threadView) string {
	if t == nil {
		return "agent"
	}
	return t.name()
}

// nameOf names thread id, "agent <short id>" when the TUI does not know it.
func (s *session) nameOf(id protocol.ThreadID) string {
	if t := s.threads[id]; t != nil {
		return t.name()
	}
	return "agent " + id.Short()
}
