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
	Escape, ModeSwitch, Scroll, ToggleOutput, ToolFocus, Search, TreeSearch, Agents, ToggleTree,
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
	Escape:        bind("interrupt the focused agent (idle: twice edits your last message)", "esc"),
	ModeSwitch:    bind("switch the approval mode (untrusted → on-request → never; /approvals)", "shift+tab"),
	Scroll:        bind("scroll the transcript (mouse wheel too; home/end move in a draft)", "pgup", "pgdown", "home", "end"),
	ToggleOutput:  bind("expand / collapse the highlighted (else the last) tool call", "ctrl+o"),
	ToolFocus:     bind("highlight the previous / next tool call", "alt+up", "alt+down"),
	Search:        bind("search the transcript", "ctrl+f"),
	TreeSearch:    bind("in the tree: search the transcript", "/"),
	Agents:        bind("agents table (sort with s, filter with /)", "ctrl+t"),
	ToggleTree:    bind("show / hide the agent tree", "ctrl+b"),
	Mouse:         bind("mouse capture on / off (off: select and copy text)", "alt+m", "f2"),
	Interrupt:     bind("clear the draft, close, or interrupt the focused agent; twice quits", "ctrl+c"),
	Help:          bind("this help", "?"),
	DiffReview:    bind("review the tree's patches: accept / revert hunks (composer empty; /diff)", "ctrl+d"),

	ApprovalFocus:  bind("approval: go to the asking agent and answer (until then typing goes to the composer)", "tab"),
	ApprovalChoose: bind("approval: choose and answer; scroll a long command a page", "up", "down", "enter", "pgup", "pgdown"),
	ApprovalAnswer: bind("approval: once, session, deny, deny and stop its turn (outside the sandbox: then enter)", "y", "a", "n", "esc"),
}

// FullHelp is the ? screen's key list, one column.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Send, k.NewLine, k.History, k.HistorySearch, k.SwitchFocus,
		row("in the tree: move, focus that agent (or click it)", k.TreeUp, k.TreeDown, k.TreeOpen),
		k.Escape, k.ModeSwitch, k.Scroll, k.ToggleOutput, k.ToolFocus,
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
	out := make([]string, 0, len(ks))
	for _, x := range ks {
		if s, ok := short[x]; ok {
			x = s
		}
		if x != " " { // "space" says it
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

// handleKey routes a key press to the top layer (layers.go).
func (m Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.rewind > 0 {
		m.flash = ""
		if cmd, done := m.rewindKey(msg.String(), key.Matches(msg, keys.Interrupt)); done {
			return m, cmd
		}
	}
	if key.Matches(msg, keys.Interrupt) {
		return m.ctrlC()
	}
	if msg.String() != "esc" {
		m.escAt = time.Time{}
	}
	m.flash = ""
	m.quitHint = time.Time{}
	switch m.topLayer() {
	case layerPicker:
		return m.pickerKey(msg)
	case layerHelp:
		m.helpKey(msg.String())
		return m, nil
	case layerReview:
		return m.reviewKey(msg)
	case layerAgents:
		jump, closeIt := m.overlay.key(&m, msg)
		if jump != "" {
			m.focusThread(jump)
		}
		if closeIt || jump != "" {
			m.overlay = nil
		}
		return m, nil
	}
	return m.mainKey(msg)
}

// pickerKey is a key for the session picker.
func (m Model) pickerKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
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

// helpKey scrolls the help when it does not fit; any other key closes it.
func (m *Model) helpKey(k string) {
	last := max(0, len(m.helpLines())-m.bodyHeight())
	switch {
	case is(k, helpKeys.Up):
		m.helpTop = max(0, m.helpTop-1)
	case is(k, helpKeys.Down):
		m.helpTop = min(last, m.helpTop+1)
	case is(k, helpKeys.PageUp):
		m.helpTop = max(0, m.helpTop-m.bodyHeight()+1)
	case is(k, helpKeys.PageDown):
		m.helpTop = min(last, m.helpTop+m.bodyHeight()-1)
	default:
		m.help, m.helpTop = false, 0
	}
}

// mainKey is a key for the main screen: the tree, the focused agent's pane
// (and its approval modal when it asks) and the composer.
func (m Model) mainKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := msg.String()
	if m.search != nil {
		m.searchKey(msg)
		return m, nil
	}
	if m.tsearch != nil && !m.modalShown() {
		m.searchTranscriptKey(msg)
		return m, nil
	}
	if key.Matches(msg, keys.Search) || key.Matches(msg, keys.TreeSearch) && m.area == focusTree {
		m.tsearch = &transcriptSearch{editing: true, cur: -1}
		return m, nil
	}
	if m.modalShown() && !isScrollKey(k, m.appr.focused) {
		if done, cmd := m.approvalKey(k, m.now()); done {
			return m, cmd
		}
	} else if key.Matches(msg, keys.ApprovalFocus) && m.appr.current() != nil && !m.modalShown() && !strings.HasPrefix(m.composer.Value(), "/") {
		m.goToApproval()
		return m, nil
	}
	if m.questionShown() && !isScrollKey(k, false) {
		if done, cmd := m.questionKey(k, m.now()); done {
			return m, cmd
		}
	}
	if mm, cmd, ok := m.globalKey(msg); ok {
		return mm, cmd
	}
	if m.area == focusTree {
		m.treeKey(msg)
		return m, nil
	}
	return m.composerKey(msg)
}

// isScrollKey: keys that scroll the pane behind an approval modal the user
// has not focused; they are not typing, so they never move its focus.
func isScrollKey(k string, modalFocused bool) bool {
	// A focused modal scrolls its command.
	return is(k, scrollKeys.PageUp, scrollKeys.PageDown) && !modalFocused
}

// globalKey handles the main screen's keys that act the same in the tree
// and the composer; ok is false for a key it leaves to them.
func (m Model) globalKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd, bool) {
	k := msg.String()
	switch {
	case key.Matches(msg, keys.Agents):
		m.overlay = newAgentsOverlay()
	case key.Matches(msg, keys.DiffReview) && m.composer.Value() == "":
		// In a draft ctrl+d deletes forward, as the composer's editor does.
		m.openReview()
	case key.Matches(msg, keys.ToggleTree):
		m.showTree = !m.showTree
	case key.Matches(msg, keys.HistorySearch):
		if m.area == focusComposer && len(m.history) > 0 {
			m.search = &historySearch{match: -1, saved: m.composer.Value()}
		}
	case key.Matches(msg, keys.Mouse):
		m.mouse = !m.mouse
		if m.mouse {
			m.flash = "mouse capture on: wheel scrolls, clicks focus agents"
		} else {
			m.flash = "mouse capture off: select text with the mouse · alt+m or f2 turns it back on"
		}
	case key.Matches(msg, keys.ToggleOutput):
		m.toggleTool()
	case key.Matches(msg, keys.ToolFocus):
		if k == "alt+up" {
			m.moveToolFocus(-1)
		} else {
			m.moveToolFocus(1)
		}
	case key.Matches(msg, keys.ModeSwitch):
		return m, m.cycleApprovalMode(), true
	case key.Matches(msg, keys.Scroll):
		if is(k, scrollKeys.Top, scrollKeys.Bottom) && m.area == focusComposer && m.composer.Value() != "" {
			return m, nil, false // in a draft they move the cursor to the line's start or end
		}
		m.scrollKey(k)
	case key.Matches(msg, keys.Escape):
		mm, cmd := m.escape()
		return mm, cmd, true
	case key.Matches(msg, keys.SwitchFocus):
		mm, cmd := m.switchFocus(k)
		return mm, cmd, true
	default:
		return m, nil, false
	}
	return m, nil, true
}

// scrollKey scrolls the focused agent's transcript.
func (m *Model) scrollKey(k string) {
	t := m.sess.threads[m.focused]
	if t == nil {
		return
	}
	switch {
	case is(k, scrollKeys.PageUp):
		m.scroll(t, -(m.bodyHeight() - 2))
	case is(k, scrollKeys.PageDown):
		m.scroll(t, m.bodyHeight()-2)
	case is(k, scrollKeys.Top):
		t.follow, t.top = false, 0
	case is(k, scrollKeys.Bottom):
		t.follow = true
	}
}

// switchFocus is tab: complete a menu or a slash command, else move
// between the composer and the tree.
func (m Model) switchFocus(k string) (tea.Model, tea.Cmd) {
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

// treeKey moves the tree cursor and focuses agents.
func (m *Model) treeKey(msg tea.KeyPressMsg) {
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
}

// composerKey is a key typed into the composer (or its menus).
func (m Model) composerKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := msg.String()
	if key.Matches(msg, keys.History, keys.Send) {
		if mm, cmd, ok := m.slashMenuKey(k); ok {
			return mm, cmd
		}
		if mm, ok := m.skillMenuKey(k); ok {
			return mm, nil
		}
	}
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
			m.recallHistory(k)
			return m, nil
		}
	}
	m.slashSel, m.skillSel = 0, 0 // the menu filter changes with what is typed
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg)
	return m, cmd
}

// recallHistory moves through this project's input history.
func (m *Model) recallHistory(k string) {
	if len(m.history) == 0 {
		return
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
}

// approvalKey offers a key to the approval modal; done is false when the
// key belongs to the composer or the tree (the user is typing).
func (m *Model) approvalKey(k string, now time.Time) (done bool, cmd tea.Cmd) {
	if !m.appr.focused {
		switch {
		case is(k, keys.ApprovalFocus) && !(m.area == focusComposer && strings.HasPrefix(m.composer.Value(), "/")):
			// Focusing decides nothing; answers still wait out the grace.
			m.appr.focused = true
			return true, nil
		case m.area == focusComposer && m.appr.takesFocus(k, now, m.composer.Value() != ""):
			m.appr.focused = true // the key below decides whether it stays
			if is(k, approvalKeys.Choose) {
				// Enter answers the highlighted option only once the
				// highlight has been seen: the first one just shows it.
				return true, nil
			}
		default:
			m.appr.typed = true // from now on only tab reaches the modal
			return false, nil
		}
	}
	top, rows, total := m.r.modalWindow(&m.appr, m.sess, m.transcriptWidth(), m.bodyHeight())
	m.appr.markSeen(top, rows, total, m.transcriptWidth())
	act, d := m.appr.key(k, now)
	m.appr.scroll = min(m.appr.scroll, max(0, total-rows))
	switch act {
	case approvalPass:
		return false, nil
	case approvalHandled:
		return true, nil
	}
	req := *m.appr.current()
	m.appr.remove(req.ID, now)
	cmds := []tea.Cmd{m.answer(req, d)}
	if d == protocol.DecisionApprovedForSession {
		// "Don't ask again" covers the identical requests already queued
		// (a sibling asked for the same command meanwhile: issue 35 item 11).
		for _, q := range m.appr.sameAs(req) {
			m.appr.remove(q.ID, now)
			cmds = append(cmds, m.answer(q, d))
		}
	}
	return true, tea.Batch(cmds...)
}

// answer sends decision d for req and leaves a trace in the asking
// agent's transcript, as Codex logs "✔ You approved …".
func (m *Model) answer(req protocol.ApprovalRequest, d protocol.ReviewDecision) tea.Cmd {
	m.sess.noteAsked(req) // shown in the modal, it was asked
	if d == protocol.DecisionApprovedForSession && !req.OffersSession() {
		// The engine approves it once (and publishes that): so does the trace.
		d = protocol.DecisionApproved
	}
	m.sess.traceAnswer(m.sess.threads[askerOf(&req, m.sess)], req, d, protocol.ResolvedAnswered)
	return m.submit(protocol.Op{Type: protocol.OpApproval, ThreadID: req.ThreadID, ApprovalID: req.ID, Decision: d})
}

// decisionTrace is the transcript's line for an answered request.
func decisionTrace(req protocol.ApprovalRequest, d protocol.ReviewDecision) string {
	what := approvalSummary(req)
	where := ""
	if outsideSandbox(&req) {
		where = " outside the sandbox"
	}
	switch d {
	case protocol.DecisionApproved:
		return "✔ You approved" + where + ": " + what + " (this time)"
	case protocol.DecisionApprovedForSession:
		return "✔ You approved" + where + ": " + what + " (for the rest of this session)"
	case protocol.DecisionAbort:
		return "✗ You denied: " + what + " and stopped the turn"
	}
	return "✗ You denied: " + what
}

func (m *Model) syncSelection() {
	for i, id := range m.sess.treeOrder() {
		if id == m.focused {
			m.selected = i
		}
	}
}
