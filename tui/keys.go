package tui

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// keyMap is every key the main screen handles. The ? screen and the status
// line render these same bindings, and a binding's help shows its own
// keys (bind), so what is shown cannot drift from what works.
type keyMap struct {
	Send, NewLine, History, HistorySearch, SwitchFocus, TreeUp, TreeDown, TreeOpen,
	Back, Scroll, ToggleOutput, ToolFocus, Search, TreeSearch, Agents, ToggleTree,
	Mouse, Interrupt, Help, DiffReview key.Binding
	// The approval modal's keys (matched in approval.go), listed in help.
	ApprovalFocus, ApprovalChoose, ApprovalAnswer key.Binding
}

// keys is the one keymap of the main screen.
var keys = keyMap{
	Send:          bind("send to the focused agent", "enter"),
	NewLine:       bind("new line", "shift+enter", "ctrl+j", "alt+enter"),
	History:       bind("history (composer empty)", "up", "down"),
	HistorySearch: bind("search this project's input history", "ctrl+r"),
	SwitchFocus:   bind("switch between composer and agent tree", "tab"),
	TreeUp:        bind("in the tree: up", "up", "k"),
	TreeDown:      bind("in the tree: down", "down", "j"),
	TreeOpen:      bind("in the tree: focus that agent", "enter"),
	Back:          bind("back to the root agent / close overlays", "esc"),
	Scroll:        bind("scroll the transcript (mouse wheel too; home/end move in a draft)", "pgup", "pgdown", "home", "end"),
	ToggleOutput:  bind("expand / collapse the highlighted (else the last) tool call", "ctrl+o"),
	ToolFocus:     bind("highlight the previous / next tool call", "alt+up", "alt+down"),
	Search:        bind("search the transcript", "ctrl+f"),
	TreeSearch:    bind("in the tree: search the transcript", "/"),
	Agents:        bind("agents table (sort with s, filter with /)", "ctrl+t"),
	ToggleTree:    bind("show / hide the agent tree", "ctrl+b"),
	Mouse:         bind("mouse capture on / off (off: select and copy text)", "alt+m", "f2"),
	Interrupt:     bind("interrupt the focused agent and its sub-agents; twice quits", "ctrl+c"),
	Help:          bind("this help", "?"),
	DiffReview:    bind("review the tree's patches: accept / revert hunks (composer empty; /diff)", "ctrl+d"),

	ApprovalFocus:  bind("approval: answer it (until then typing goes to the composer)", "tab"),
	ApprovalChoose: bind("approval: choose and answer; scroll a long command", "up", "down", "enter", "pgup", "pgdown"),
	ApprovalAnswer: bind("approval: once, session, deny, abort (outside the sandbox: then enter)", "y", "a", "n", "esc"),
}

// FullHelp is the ? screen's key list, one column.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Send, k.NewLine, k.History, k.HistorySearch, k.SwitchFocus,
		row("in the tree: move, focus that agent (or click it)", k.TreeUp, k.TreeDown, k.TreeOpen),
		k.Back, k.Scroll, k.ToggleOutput, k.ToolFocus,
		row("search the transcript (/ in the tree; enter next, n/N, esc)", k.Search, k.TreeSearch),
		k.Agents, k.DiffReview, k.ToggleTree, k.Mouse, k.Interrupt,
		k.ApprovalFocus, k.ApprovalChoose, k.ApprovalAnswer}}
}

// ShortHelp is the status line's hints: the same bindings, short words.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{hint(k.SwitchFocus, "tree"), hint(k.Agents, "agents"), hint(k.Help, "help")}
}

// narrowHelp is the status line's hint when little room is left.
func (k keyMap) narrowHelp() []key.Binding { return []key.Binding{hint(k.Help, "help")} }

// bind makes a binding whose help shows exactly the keys it matches.
func bind(desc string, ks ...string) key.Binding {
	return key.NewBinding(key.WithKeys(ks...), key.WithHelp(keyLabel(ks), desc))
}

// row joins bindings into one help row showing all their keys.
func row(desc string, bs ...key.Binding) key.Binding {
	var ks []string
	for _, b := range bs {
		for _, x := range b.Keys() {
			if !slices.Contains(ks, x) {
				ks = append(ks, x)
			}
		}
	}
	return bind(desc, ks...)
}

// hint is b with a shorter description; its keys stay b's.
func hint(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// keyLabel is how help spells a list of keys.
func keyLabel(ks []string) string {
	short := map[string]string{"up": "↑", "down": "↓", "pgdown": "pgdn"}
	out := make([]string, len(ks))
	for i, x := range ks {
		if s, ok := short[x]; ok {
			x = s
		}
		out[i] = x
	}
	return strings.Join(out, " ")
}

// handleKey routes a key press to the active layer.
func (m Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := msg.String()
	if key.Matches(msg, keys.Interrupt) {
		return m.ctrlC()
	}
	m.flash = ""
	m.quitHint = time.Time{}
	now := m.now()
	if m.picker != nil {
		done, cmd := m.picker.key(msg)
		if done != "" {
			if id := protocol.ThreadID(done); m.backend == nil || id != m.sess.root {
				return m, m.openSession(id) // the picker stays until it opens
			}
			m.picker = nil
			return m, m.openSession(protocol.ThreadID(done))
		}
		if m.picker.closed {
			m.picker = nil
			if m.backend == nil {
				return m, tea.Quit
			}
		}
		return m, cmd
	}
	if m.help {
		// The help scrolls when it does not fit; any other key closes it.
		last := max(0, len(m.helpLines())-m.bodyHeight())
		switch k {
		case "up", "k":
			m.helpTop = max(0, m.helpTop-1)
		case "down", "j":
			m.helpTop = min(last, m.helpTop+1)
		case "pgup":
			m.helpTop = max(0, m.helpTop-m.bodyHeight()+1)
		case "pgdown", "space", " ":
			m.helpTop = min(last, m.helpTop+m.bodyHeight()-1)
		default:
			m.help, m.helpTop = false, 0
		}
		return m, nil
	}
	if m.review != nil {
		return m.reviewKey(msg)
	}
	if m.search != nil {
		m.searchKey(msg)
		return m, nil
	}
	if m.tsearch != nil && m.appr.current() == nil {
		m.searchTranscriptKey(msg)
		return m, nil
	}
	if key.Matches(msg, keys.Search) || key.Matches(msg, keys.TreeSearch) && m.area == focusTree {
		m.tsearch = &transcriptSearch{editing: true, cur: -1}
		return m, nil
	}
	if m.overlay == nil && m.appr.current() != nil {
		if done, cmd := m.approvalKey(k, now); done {
			return m, cmd
		}
	}
	if m.overlay == nil && m.appr.current() == nil && m.quest.current() != nil {
		if done, cmd := m.questionKey(k, now); done {
			return m, cmd
		}
	}
	if m.overlay != nil {
		jump, closeIt := m.overlay.key(&m, msg)
		if jump != "" {
			m.focusThread(jump)
		}
		if closeIt || jump != "" {
			m.overlay = nil
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, keys.Agents):
		m.overlay = newAgentsOverlay()
		return m, nil
	case key.Matches(msg, keys.DiffReview) && m.composer.Value() == "":
		// In a draft ctrl+d deletes forward, as the composer's editor does.
		m.openReview()
		return m, nil
	case key.Matches(msg, keys.ToggleTree):
		m.showTree = !m.showTree
		return m, nil
	case key.Matches(msg, keys.HistorySearch):
		if m.area == focusComposer && len(m.history) > 0 {
			m.search = &historySearch{match: -1, saved: m.composer.Value()}
		}
		return m, nil
	case key.Matches(msg, keys.Mouse):
		m.mouse = !m.mouse
		if m.mouse {
			m.flash = "mouse capture on: wheel scrolls, clicks focus agents"
		} else {
			m.flash = "mouse capture off: select text with the mouse · alt+m or f2 turns it back on"
		}
		return m, nil
	case key.Matches(msg, keys.ToggleOutput):
		m.toggleTool()
		return m, nil
	case key.Matches(msg, keys.ToolFocus):
		if k == "alt+up" {
			m.moveToolFocus(-1)
		} else {
			m.moveToolFocus(1)
		}
		return m, nil
	case key.Matches(msg, keys.Scroll):
		if (k == "home" || k == "end") && m.area == focusComposer && m.composer.Value() != "" {
			break // in a draft they move the cursor to the line's start or end
		}
		if t := m.sess.threads[m.focused]; t != nil {
			switch k {
			case "pgup":
				m.scroll(t, -(m.bodyHeight() - 2))
			case "pgdown":
				m.scroll(t, m.bodyHeight()-2)
			case "home":
				t.follow, t.top = false, 0
			case "end":
				t.follow = true
			}
		}
		return m, nil
	case key.Matches(msg, keys.Back):
		if m.clearToolFocus() {
			return m, nil
		}
		if m.area == focusTree {
			m.area = focusComposer
			m.composer.Focus()
			return m, nil
		}
		m.focusThread(m.sess.root)
		return m, nil
	case key.Matches(msg, keys.History, keys.Send):
		if m.area == focusComposer {
			if mm, cmd, ok := m.slashMenuKey(k); ok {
				return mm, cmd
			}
			if mm, ok := m.skillMenuKey(k); ok {
				return mm, nil
			}
		}
	case key.Matches(msg, keys.SwitchFocus):
		if m.area == focusComposer && len(m.slashMenu()) > 0 {
			mm, cmd, _ := m.slashMenuKey(k)
			return mm, cmd
		}
		if m.area == focusComposer && len(m.skillMenu()) > 0 {
			mm, _ := m.skillMenuKey(k)
			return mm, nil
		}
		if m.area == focusComposer && strings.HasPrefix(m.composer.Value(), "/") {
			return m.completeSlashLine() // never jumps to the tree mid-command
		}
		if m.area == focusComposer {
			m.area = focusTree
			m.composer.Blur()
			m.syncSelection()
		} else {
			m.area = focusComposer
			m.composer.Focus()
		}
		return m, nil
	}
	if m.area == focusTree {
		order := m.sess.treeOrder()
		switch {
		case key.Matches(msg, keys.TreeUp):
			m.selected = max(0, m.selected-1)
		case key.Matches(msg, keys.TreeDown):
			m.selected = min(len(order)-1, m.selected+1)
		case key.Matches(msg, keys.TreeOpen):
			if m.selected < len(order) {
				m.focusThread(order[m.selected])
			}
			m.area = focusComposer
			m.composer.Focus()
		case key.Matches(msg, keys.Help):
			m.help = true
		}
		return m, nil
	}
	// Composer.
	switch {
	case key.Matches(msg, keys.Help):
		if m.composer.Value() == "" {
			m.help = true
			return m, nil
		}
	case key.Matches(msg, keys.Send):
		return m.send()
	case key.Matches(msg, keys.History):
		if m.composer.Value() == "" || m.histIdx != len(m.history) {
			if len(m.history) == 0 {
				return m, nil
			}
			if k == "up" {
				m.histIdx = max(0, m.histIdx-1)
			} else {
				m.histIdx = min(len(m.history), m.histIdx+1)
			}
			m.clearComposer()
			if m.histIdx < len(m.history) {
				// A recalled paste comes back as the chip it was typed as,
				// not as hundreds of rows in the composer.
				m.composer.SetValue(m.pastes.chip(m.history[m.histIdx]))
			}
			return m, nil
		}
	}
	m.slashSel, m.skillSel = 0, 0 // the menu filter changes with what is typed
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg)
	return m, cmd
}

// approvalKey offers a key to the approval modal; done is false when the
// key belongs to the composer or the tree (the user is typing).
func (m *Model) approvalKey(k string, now time.Time) (done bool, cmd tea.Cmd) {
	if !m.appr.focused {
		switch {
		case k == "tab" && !(m.area == focusComposer && strings.HasPrefix(m.composer.Value(), "/")):
			// Focusing decides nothing; answers still wait out the grace.
			m.appr.focused = true
			return true, nil
		case m.area == focusComposer && m.appr.takesFocus(k, now, m.composer.Value() != ""):
			m.appr.focused = true // the key below decides whether it stays
			if k == "enter" {
				// Enter answers the highlighted option only once the
				// highlight has been seen: the first one just shows it.
				return true, nil
			}
		default:
			m.appr.typed = true // from now on only tab reaches the modal
			return false, nil
		}
	}
	act, d := m.appr.key(k, now)
	m.appr.scroll = min(m.appr.scroll, max(0, m.modalBodyRows()-1))
	switch act {
	case approvalPass:
		return false, nil
	case approvalHandled:
		return true, nil
	}
	req := *m.appr.current()
	m.appr.remove(req.ID, now)
	return true, m.submit(protocol.Op{Type: protocol.OpApproval, ThreadID: req.ThreadID, ApprovalID: req.ID, Decision: d})
}

// modalBodyRows is how many rows the shown request's body has at the
// current width (the bound of its scroll).
func (m *Model) modalBodyRows() int {
	req := m.appr.current()
	if req == nil {
		return 0
	}
	return len(m.r.modalBody(req, max(1, min(m.transcriptWidth(), 100)-4)))
}

func (m *Model) syncSelection() {
	for i, id := range m.sess.treeOrder() {
		if id == m.focused {
			m.selected = i
		}
	}
}

func (m *Model) focusThread(id protocol.ThreadID) {
	if _, ok := m.sess.threads[id]; ok {
		m.focused = id
		m.syncSelection()
	}
}

// flashInterrupting starts the flash shown while an interrupt is on its way.
const flashInterrupting = "interrupting"

// ctrlC interrupts the focused turn (the engine cascades to its
// descendants); pressed again within 1.5 s, or on an idle screen, it quits.
func (m Model) ctrlC() (tea.Model, tea.Cmd) {
	if m.picker != nil && m.backend == nil {
		return m, tea.Quit
	}
	now := m.now()
	armed := !m.quitHint.IsZero()
	if armed && (now.Sub(m.quitHint) < 1500*time.Millisecond || !m.running()) {
		m.quitting = true
		return m, tea.Batch(m.submit(protocol.Op{Type: protocol.OpShutdown}), tea.Quit)
	}
	m.quitHint = now
	switch {
	case m.composer.Value() != "":
		m.clearComposer()
		m.flash = "input cleared · press ctrl+c again to quit"
		return m, nil
	case m.running():
		m.flash = flashInterrupting + " · press ctrl+c again to quit"
		return m, m.submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: m.focused})
	}
	m.flash = "press ctrl+c again to quit"
	return m, nil
}
