package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// One focus model (issue 35 items 1 and 2): the focused agent is the one
// on screen, and every key acts on it. Its pane, the composer's "to …",
// ctrl+c and esc all name that agent; an approval modal belongs to the
// agent that asks and shows in its pane while it is focused, so the tree
// and the transcripts stay usable while a request waits (the tree badges
// the asker, a banner and tab lead to it). Nothing moves the focus but
// the user, and no key stops work the user cannot see.

// modalShown reports whether the approval modal is on screen: a request
// waits and its agent is the focused one.
func (m *Model) modalShown() bool {
	return m.appr.current() != nil && m.appr.asker(m.sess) == m.focused && m.topLayer() == layerMain
}

// questionShown reports whether request_user_input's question card is in
// the pane: one waits and no approval modal is on screen (the modal first).
func (m *Model) questionShown() bool {
	return m.quest.current() != nil && !m.modalShown() && m.topLayer() == layerMain
}

// focusThread shows agent id. A modal that comes on screen with it starts
// over (fresh grace, not focused): it was not seen before; one that goes
// off screen gives its keys back.
func (m *Model) focusThread(id protocol.ThreadID) {
	if _, ok := m.sess.threads[id]; !ok {
		return
	}
	before := m.modalShown()
	m.focused = id
	m.syncSelection()
	if after := m.modalShown(); after && !before {
		m.appr.show(m.now())
	} else if !after {
		m.appr.focused = false
	}
}

// goToApproval is tab while a request waits off screen: focus the agent
// that asks and give its modal the keys (answers still wait out the grace).
func (m *Model) goToApproval() {
	m.focusThread(m.appr.asker(m.sess))
	m.area = focusComposer
	m.composer.Focus()
	m.appr.focused = true
}

// flashInterrupting starts the flash shown while an interrupt is on its way.
const flashInterrupting = "interrupting"

// escape is esc on the main screen: it backs out of what is highlighted,
// else interrupts the focused agent's running turn (as in Codex and
// Claude Code), else, pressed twice on an idle agent with an empty
// composer, rewinds the root to a message the user sent (rewind.go) or
// brings back the last message sent to a sub-agent for editing.
func (m Model) escape() (tea.Model, tea.Cmd) {
	if m.clearToolFocus() {
		return m, nil
	}
	if m.area == focusTree {
		m.area = focusComposer
		m.composer.Focus()
		return m, nil
	}
	t := m.sess.threads[m.focused]
	if t != nil && t.status.IsActive() {
		return m, m.interruptFocused(t)
	}
	if t == nil || m.composer.Value() != "" {
		return m, nil
	}
	now := m.now()
	if !m.escAt.IsZero() && now.Sub(m.escAt) < 1500*time.Millisecond {
		m.escAt = time.Time{}
		m.startRewind(t)
		return m, nil
	}
	if lastUserText(t) != "" {
		m.escAt = now
		m.flash = "esc again to edit your previous message"
		if m.opts.Rewind != nil && t.info.ID == m.sess.root {
			m.flash = "esc again to rewind to your previous message"
		}
	}
	return m, nil
}

// interruptFocused stops the focused agent's turn (the engine stops its
// sub-agents' too); its queued messages stay queued.
func (m *Model) interruptFocused(t *threadView) tea.Cmd {
	m.flash = flashInterrupting + " " + agentName(m.sess, t) + " · press ctrl+c again to quit"
	return m.submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: t.info.ID})
}

// editPrevious puts the last message sent to t back in the composer.
func (m *Model) editPrevious(t *threadView) {
	text := lastUserText(t)
	if text == "" {
		return
	}
	m.clearComposer()
	m.composer.SetValue(m.pastes.chip(text))
	m.area = focusComposer
	m.composer.Focus()
	m.flash = "editing your previous message · enter sends it again as a new message"
}

// lastUserText is the last message the user sent to t ("" when none).
func lastUserText(t *threadView) string {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := t.entries[i]; e.kind == entryUser {
			return e.text
		}
	}
	return ""
}

// ctrlC clears the draft, else closes what covers the screen, else
// interrupts the focused agent (the engine cascades to its descendants);
// pressed again within 1.5 s, or when nothing it could stop is on screen,
// it quits.
func (m Model) ctrlC() (tea.Model, tea.Cmd) {
	if m.picker != nil && m.backend == nil {
		return m, tea.Quit
	}
	now := m.now()
	armed := !m.quitHint.IsZero()
	focused := m.sess.threads[m.focused]
	shownRunning := focused != nil && focused.status.IsActive() && m.topLayer() == layerMain
	if armed && (now.Sub(m.quitHint) < 1500*time.Millisecond || !shownRunning) {
		m.quitting = true
		return m, tea.Batch(m.submit(protocol.Op{Type: protocol.OpShutdown}), tea.Quit)
	}
	m.quitHint = now
	switch {
	case m.composer.Value() != "" && m.topLayer() == layerMain:
		m.clearComposer()
		m.flash = "input cleared · press ctrl+c again to quit"
		return m, nil
	case m.closeTop():
		m.flash = "closed · press ctrl+c again to quit"
		return m, nil
	case shownRunning:
		return m, m.interruptFocused(focused)
	}
	m.flash = "press ctrl+c again to quit"
	if n := m.runningCount(); n > 0 {
		m.flash = fmt.Sprintf("%s is not running (%s: focus one to interrupt it) · press ctrl+c again to quit", agentName(m.sess, focused), plural(n, "agent")+" running")
	}
	return m, nil
}

// runningCount is how many agents are running.
func (m *Model) runningCount() int {
	n := 0
	for _, t := range m.sess.threads {
		if t.status.IsActive() {
			n++
		}
	}
	return n
}
