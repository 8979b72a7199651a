package tui

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// ProcessInfo is one running session (a command exec_command left
// running) for /ps.
type ProcessInfo struct {
	ID      int
	Agent   protocol.ThreadID
	Command string
	Started time.Time
}

// ps runs /ps: "" lists the running sessions with their agent, command
// and age; "kill <id>" kills one (its whole process tree).
func (m Model) ps(arg string) (Model, tea.Cmd) {
	if m.opts.Processes == nil {
		m.flash = "/ps is not available here"
		return m, nil
	}
	if rest, ok := strings.CutPrefix(arg, "kill"); ok {
		id, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || m.opts.KillProcess == nil {
			m.flash = "usage: /ps kill <session id>"
			return m, nil
		}
		kill := m.opts.KillProcess
		return m, func() tea.Msg {
			if err := kill(id); err != nil {
				return flashMsg(fmt.Sprintf("/ps kill %d: %v", id, err))
			}
			return flashMsg(fmt.Sprintf("session %d killed", id))
		}
	}
	list, now := m.opts.Processes, m.now
	return m, func() tea.Msg { return flashMsg(psLine(list(), now())) }
}

// psLine is the one-line listing /ps shows.
func psLine(procs []ProcessInfo, now time.Time) string {
	if len(procs) == 0 {
		return "no running sessions"
	}
	parts := make([]string, 0, len(procs))
	for _, p := range procs {
		age := now.Sub(p.Started).Round(time.Second)
		parts = append(parts, fmt.Sprintf("%d %s `%s` %s", p.ID, shortID(p.Agent), psCommand(p.Command), age))
	}
	return fmt.Sprintf("%d running: %s · /ps kill <id>", len(procs), strings.Join(parts, " · "))
}

// psCommand is a model-written command made safe to show: control
// characters (an escape sequence aimed at the terminal) become "·", runs
// of space one, at most 40 characters.
func psCommand(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return '·'
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return s
}

// shortID is an agent id's last 6 characters.
func shortID(id protocol.ThreadID) string {
	s := string(id)
	if len(s) > 6 {
		return s[len(s)-6:]
	}
	return s
}

// procCache is the session list the tree draws from, fetched at most once
// a second (a frame must not ask the engine every time).
type procCache struct {
	src  func() []ProcessInfo
	mu   sync.Mutex
	at   time.Time
	list []ProcessInfo
}

func (c *procCache) get(now time.Time) []ProcessInfo {
	if c == nil || c.src == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.at) >= time.Second || now.Before(c.at) {
		c.list, c.at = c.src(), now
	}
	return c.list
}

// sessionRows are the tree's rows for an agent's running sessions: the
// command (sanitized) and its age; /ps kill <id> ends one.
func (m Model) sessionRows(agent protocol.ThreadID) []string {
	now := m.now()
	var out []string
	for _, p := range m.procs.get(now) {
		if p.Agent == agent {
			out = append(out, fmt.Sprintf("$ %s · %s · %d", psCommand(p.Command), now.Sub(p.Started).Round(time.Second), p.ID))
		}
	}
	return out
}
