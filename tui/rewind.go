package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Rewind (issue 35 item 23), Codex's backtrack (codex-rs/tui/src/
// app_backtrack.rs): esc twice on the idle root with an empty composer
// selects the last message the user sent, esc again the one before; enter
// opens a fork of the session cut before the selected message (the engine's
// RewindSession) and puts that message in the composer to edit. The
// session as it was stays on disk, resumable; any other key cancels.

// startRewind is the second esc: the root rewinds when the session can
// fork, else (a sub-agent, a read-only view, no fork here) the last
// message sent to t comes back as a draft to send again.
func (m *Model) startRewind(t *threadView) {
	if m.opts.Rewind == nil || m.backend == nil || t.info.ID != m.sess.root || m.info.ReadOnly != "" {
		m.editPrevious(t)
		return
	}
	m.setRewind(1)
	m.rewindFlash()
}

// rewindKey is a key while a message is selected: esc steps back, enter
// forks, ctrl+c (interrupt) only cancels; any other key cancels the rewind
// and does what it always does (handled false).
func (m *Model) rewindKey(k string, interrupt bool) (tea.Cmd, bool) {
	if interrupt {
		m.setRewind(0)
		m.flash = "rewind cancelled"
		return nil, true
	}
	switch k {
	case "esc":
		if m.rewind < len(userTexts(m.sess.threads[m.sess.root])) {
			m.setRewind(m.rewind + 1)
		}
		m.rewindFlash()
		return nil, true
	case "enter":
		n := m.rewind
		m.setRewind(0)
		m.flash = "rewinding…"
		return m.rewindCmd(n), true
	}
	m.setRewind(0)
	return nil, false
}

// rewindFlash names the selected message and the keys.
func (m *Model) rewindFlash() {
	texts := userTexts(m.sess.threads[m.sess.root])
	if m.rewind > len(texts) || m.rewind < 1 {
		m.setRewind(0)
		return
	}
	text := strings.Join(strings.Fields(texts[len(texts)-m.rewind]), " ")
	if r := []rune(text); len(r) > 40 {
		text = string(r[:39]) + "…"
	}
	first := ""
	if m.rewind == len(texts) {
		first = " (your first)"
	}
	m.flash = fmt.Sprintf("rewind to before %q%s · enter forks here · esc further back", text, first)
}

// setRewind selects the n-th last message the user sent to the root (0:
// none) and shows which in the transcript: the message is highlighted and
// scrolled into view while the user chooses, so what the fork would cut
// is seen, not only named in the flash.
func (m *Model) setRewind(n int) {
	m.rewind = n
	t := m.sess.threads[m.sess.root]
	if t == nil {
		return
	}
	var users []int
	for i, e := range t.entries {
		if e.kind == entryUser {
			if e.selected {
				e.selected = false
				e.touch()
			}
			users = append(users, i)
		}
	}
	if n < 1 || n > len(users) {
		return
	}
	i := users[len(users)-n]
	t.entries[i].selected = true
	t.entries[i].touch()
	if t.info.ID == m.focused {
		m.scrollToEntry(t, i)
	}
}

// rewindCmd opens the fork off the UI goroutine; backendMsg switches to it
// as /resume does and puts the cut message in the composer.
func (m *Model) rewindCmd(n int) tea.Cmd {
	rewind, id := m.opts.Rewind, string(m.sess.root)
	return func() tea.Msg {
		b, text, err := rewind(id, n)
		if err == nil && b == nil {
			err = fmt.Errorf("the rewound session did not open")
		}
		if err != nil {
			return backendMsg{err: fmt.Errorf("rewind: %w", err)}
		}
		return backendMsg{o: prepare(b), draft: text}
	}
}

// userTexts are the messages the user sent to t, oldest first.
func userTexts(t *threadView) []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, e := range t.entries {
		if e.kind == entryUser {
			out = append(out, e.text)
		}
	}
	return out
}

// putDraft puts a rewound message in the composer for editing.
func (m *Model) putDraft(text string) {
	m.clearComposer()
	m.composer.SetValue(m.pastes.chip(text))
	m.area = focusComposer
	m.composer.Focus()
	m.flash = "rewound: a fork of the session, before this message · edit it, enter sends"
}
