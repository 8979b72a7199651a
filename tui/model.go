package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// Options configures the TUI.
type Options struct {
	// Backend is the open session (nil only when starting in the picker).
	Backend Backend
	Notify  NotifyConfig
	// InitialPrompt is sent as the first user turn.
	InitialPrompt string
	// StartInPicker opens the resume picker first (`grove resume`).
	StartInPicker bool
	// Home is $GROVE_HOME for the picker when Backend is nil.
	Home string
	// OpenSession resumes a session by id (picker, /resume).
	OpenSession func(id string) (Backend, error)
	// NewSession starts a fresh session (/new).
	NewSession func() (Backend, error)
	// Models lists model names for /model completion (may be nil).
	Models func() []string
	// Now is the clock (tests pin it).
	Now func() time.Time
	// ApprovalGrace overrides the modal's input grace period (tests).
	ApprovalGrace time.Duration
}

// focusArea is where keys go.
type focusArea int

const (
	focusComposer focusArea = iota
	focusTree
)

// Model is the root Bubble Tea model: it routes messages and composes the
// panes; the state lives in session and the widgets below.
type Model struct {
	opts    Options
	backend Backend
	info    SessionInfo
	th      theme
	r       *renderer
	now     func() time.Time

	w, h     int
	sess     *session
	focused  protocol.ThreadID // thread shown in the transcript
	selected int               // tree cursor
	area     focusArea
	showTree bool

	composer textarea.Model
	pastes   pastes   // text behind the composer's paste chips
	history  []string // inputs of this project, oldest first
	histIdx  int
	histPath string
	search   *historySearch // ctrl+r in progress
	slashSel int            // highlighted row of the slash menu

	// models is the provider's model list, fetched once on demand.
	models       []string
	modelsLoaded bool

	appr     approvals
	notifier *notifier
	// lastKey is when the previous key was pressed: a modal may take the
	// keyboard only after the user stopped typing.
	lastKey time.Time

	overlay  *agentsOverlay
	help     bool
	picker   *picker
	quitHint time.Time
	flash    string

	events   <-chan protocol.Event
	unsub    func()
	quitting bool
	// ticking: the 10 Hz animation tick is scheduled (only while an agent
	// runs: spinners and elapsed times move).
	ticking bool
	// mouse: the program captures the mouse (wheel, clicks); off lets the
	// terminal select text.
	mouse bool
}

// eventsMsg carries a batch of engine events.
type eventsMsg struct {
	events []protocol.Event
	closed bool
}

type tickMsg time.Time

type backendMsg struct {
	b   Backend
	err error
}

type flashMsg string

// NewModel builds the TUI model.
func NewModel(opts Options) Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	th := newTheme()
	ta := newComposer()
	m := Model{
		opts: opts, th: th, now: opts.Now,
		r:        &renderer{th: th, now: opts.Now},
		sess:     newSession(),
		composer: ta,
		showTree: true,
		notifier: newNotifier(opts.Notify),
		w:        80, h: 24,
		mouse: true,
	}
	m.appr.grace = approvalGrace
	m.appr.quiet = approvalQuiet
	if opts.ApprovalGrace != 0 {
		m.appr.grace = opts.ApprovalGrace
	}
	if opts.ApprovalGrace < 0 {
		m.appr.grace = 0
	}
	if opts.Backend != nil {
		m.attach(opts.Backend)
	}
	m.ticking = m.running() // Init schedules the first tick
	if opts.StartInPicker {
		home := opts.Home
		if opts.Backend != nil {
			home = opts.Backend.Info().Home
		}
		m.picker = newPicker(home, m.now)
	}
	return m
}

// attach switches to a backend: subscribe first, then snapshot, so no
// event is missed.
func (m *Model) attach(b Backend) {
	if m.unsub != nil {
		m.unsub()
	}
	m.backend = b
	m.info = b.Info()
	m.events, m.unsub = b.Subscribe()
	m.sess = newSession()
	// Every thread first: a parent's history reports on its children.
	threads := b.Threads()
	for _, ti := range threads {
		m.sess.ensure(ti).setStatus(ti.Status, time.Time{})
	}
	for _, ti := range threads {
		m.sess.loadHistory(m.sess.threads[ti.ID], b.History(ti.ID))
	}
	for _, r := range b.PendingApprovals() {
		m.appr.push(r, m.now())
	}
	m.focused = b.RootID()
	m.selected = 0
	if path := historyFile(m.info.Home, m.info.Cwd); m.info.Home != "" && path != m.histPath {
		m.histPath, m.history, m.histIdx = path, nil, 0 // another project
	}
}

// Run starts the program and blocks until the user quits or ctx ends. It
// returns what the terminal should show once the screen is restored.
func Run(ctx context.Context, opts Options) (Exit, error) {
	m := NewModel(opts)
	p := tea.NewProgram(m, tea.WithContext(ctx))
	final, err := p.Run()
	// The final model holds the current subscription (sessions may have
	// been swapped); ending it stops the event reader.
	var exit Exit
	if fm, ok := final.(Model); ok {
		exit = fm.exit()
		if fm.unsub != nil {
			fm.unsub()
		}
	} else if m.unsub != nil {
		m.unsub()
	}
	if err != nil && ctx.Err() != nil {
		return exit, nil
	}
	return exit, err
}

func waitEvents(ch <-chan protocol.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsMsg{closed: true}
		}
		batch := []protocol.Event{ev}
		// Drain what is already queued: a flood of deltas is one re-render.
		for len(batch) < 512 {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{events: batch, closed: true}
				}
				batch = append(batch, ev)
			default:
				return eventsMsg{events: batch}
			}
		}
		return eventsMsg{events: batch}
	}
}

// ensureTick starts the animation tick when something animates and it is
// not already running.
func (m *Model) ensureTick() tea.Cmd {
	if m.ticking || !m.running() {
		return nil
	}
	m.ticking = true
	return tick()
}

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Init starts reading events and sends the initial prompt.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitEvents(m.events), m.notifier.checkPassthrough(), m.loadHistoryCmd()}
	if m.ticking {
		cmds = append(cmds, tick())
	}
	if m.picker != nil {
		cmds = append(cmds, m.picker.load())
	}
	if m.opts.InitialPrompt != "" && m.backend != nil {
		b, root, text := m.backend, m.backend.RootID(), m.opts.InitialPrompt
		cmds = append(cmds, func() tea.Msg {
			if err := b.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: root, Text: text}); err != nil {
				return flashMsg("send: " + err.Error())
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

func (m *Model) submit(op protocol.Op) tea.Cmd {
	if m.backend == nil {
		return nil
	}
	b := m.backend
	return func() tea.Msg {
		if err := b.Submit(op); err != nil {
			return flashMsg(err.Error())
		}
		return nil
	}
}

// Update routes messages.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.composer.MaxHeight = composerMaxRows(m.h)
		m.composer.SetWidth(max(10, m.w-2))
		return m, nil
	case tea.FocusMsg:
		m.notifier.focused = true
		return m, nil
	case tea.BlurMsg:
		m.notifier.focused = false
		return m, nil
	case eventsMsg:
		cmds := m.applyEvents(msg.events)
		cmds = append(cmds, m.ensureTick())
		if !msg.closed {
			cmds = append(cmds, waitEvents(m.events))
		} else if m.quitting {
			cmds = append(cmds, tea.Quit)
		}
		return m, tea.Batch(cmds...)
	case tickMsg:
		m.r.frame++
		if !m.running() {
			m.ticking = false // nothing animates: the program sleeps until an event or a key
			return m, nil
		}
		return m, tick()
	case flashMsg:
		m.flash = string(msg)
		return m, nil
	case passthroughMsg:
		if msg.off {
			m.notifier.noPassthrough = true
			m.flash = "tmux allow-passthrough is off: notifications ring the bell (set -g allow-passthrough on for OSC 9)"
		}
		return m, nil
	case historyLoadedMsg:
		if msg.path == m.histPath {
			// Stored inputs go before this run's (sent before they loaded).
			m.history = append(msg.lines, m.history...)
			m.histIdx = len(m.history)
		}
		if msg.err != nil {
			m.flash = msg.err.Error()
		}
		return m, nil
	case sendFailedMsg:
		if t := m.sess.threads[msg.thread]; t != nil {
			t.unqueue(msg.text)
		}
		m.flash = "not sent: " + msg.err.Error()
		return m, nil
	case backendMsg:
		if msg.err != nil {
			m.flash = msg.err.Error()
			return m, nil
		}
		before := m.histPath
		m.attach(msg.b)
		m.picker = nil
		cmds := []tea.Cmd{waitEvents(m.events), m.ensureTick()}
		if m.histPath != before {
			cmds = append(cmds, m.loadHistoryCmd())
		}
		return m, tea.Batch(cmds...)
	case modelsMsg:
		m.models, m.modelsLoaded = msg.names, true
		return m, m.afterModels(msg)
	case pickerLoadedMsg, pickerPreviewMsg:
		if m.picker != nil {
			return m, m.picker.update(msg)
		}
		return m, nil
	case tea.PasteMsg:
		if m.picker == nil && m.overlay == nil {
			m.paste(msg)
		}
		return m, nil
	case tea.MouseClickMsg:
		// A click on an agent in the tree focuses it.
		if tw := m.treeWidth(); msg.Button == tea.MouseLeft && tw > 0 && msg.X < tw && m.overlay == nil && m.picker == nil {
			_, ids := m.treeRows(tw, m.bodyHeight())
			if row := msg.Y - 1; row >= 0 && row < len(ids) && ids[row] != "" {
				m.focusThread(ids[row])
			}
		}
		return m, nil
	case tea.MouseWheelMsg:
		if t := m.sess.threads[m.focused]; t != nil {
			if msg.Button == tea.MouseWheelUp {
				m.scroll(t, -3)
			} else if msg.Button == tea.MouseWheelDown {
				m.scroll(t, 3)
			}
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	}
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg)
	return m, cmd
}

// applyEvents folds engine events into the session and decides
// notifications.
func (m *Model) applyEvents(evs []protocol.Event) []tea.Cmd {
	var cmds []tea.Cmd
	for _, ev := range evs {
		m.sess.apply(ev)
		switch ev.Type {
		case protocol.EventApprovalRequested:
			m.appr.push(*ev.Approval, m.now())
			cmds = append(cmds, m.notifier.notify(NotifyApprovalRequested, "grove: approval needed: "+plainSummary(approvalSummary(*ev.Approval), 160)))
		case protocol.EventApprovalResolved:
			m.appr.remove(ev.Approval.ID, m.now())
		case protocol.EventBackground:
			if bg := ev.Background; bg != nil && bg.IsFinal && !bg.Warning {
				label := "agent " + bg.ChildID.Short()
				if c := m.sess.threads[bg.ChildID]; c != nil {
					label = roleLabel(c.info)
				}
				if msg, ok := childNotice(label, bg.Status); ok {
					cmds = append(cmds, m.notifier.notify(NotifySubAgentComplete, msg))
				}
			}
		case protocol.EventTurnCompleted:
			if ev.ThreadID == m.sess.root {
				cmds = append(cmds, m.notifier.notify(NotifyTurnComplete, "grove: "+plainSummary(ev.Message, 160)))
			}
		case protocol.EventShutdownComplete:
			if m.quitting {
				cmds = append(cmds, tea.Quit)
			}
		}
	}
	return cmds
}

func (m *Model) scroll(t *threadView, n int) {
	h := m.bodyHeight()
	total := m.r.totalLines(m.sess, t, m.transcriptWidth())
	if t.follow {
		t.top = max(0, total-h)
	}
	t.top = max(0, t.top+n)
	t.follow = t.top >= total-h
}

func (m Model) running() bool {
	for _, t := range m.sess.threads {
		if t.status.IsActive() {
			return true
		}
	}
	return false
}

// handleKey routes a key press to the active layer.
func (m Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := msg.String()
	if k == "ctrl+c" {
		return m.ctrlC()
	}
	m.flash = ""
	m.quitHint = time.Time{}
	now, lastKey := m.now(), m.lastKey
	m.lastKey = now
	if m.picker != nil {
		done, cmd := m.picker.key(msg)
		if done != "" && m.backend != nil && protocol.ThreadID(done) == m.sess.root {
			// Resuming the open session would start a second engine on the
			// same rollout.
			m.picker = nil
			m.flash = "session " + m.sess.root.Short() + " is already open"
			return m, nil
		}
		if done != "" {
			id := done
			open := m.opts.OpenSession
			return m, func() tea.Msg {
				if open == nil {
					return backendMsg{err: fmt.Errorf("resuming is not available here")}
				}
				b, err := open(id)
				return backendMsg{b: b, err: err}
			}
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
		m.help = false
		return m, nil
	}
	if m.search != nil {
		m.searchKey(msg)
		return m, nil
	}
	if m.overlay == nil && m.appr.current() != nil {
		if done, cmd := m.approvalKey(k, now, lastKey); done {
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
	switch k {
	case "ctrl+t":
		m.overlay = newAgentsOverlay()
		return m, nil
	case "ctrl+b":
		m.showTree = !m.showTree
		return m, nil
	case "ctrl+r":
		if m.area == focusComposer && len(m.history) > 0 {
			m.search = &historySearch{match: -1, saved: m.composer.Value()}
		}
		return m, nil
	case "alt+m", "f2":
		m.mouse = !m.mouse
		if m.mouse {
			m.flash = "mouse capture on: wheel scrolls, clicks focus agents"
		} else {
			m.flash = "mouse capture off: select text with the mouse · alt+m or f2 turns it back on"
		}
		return m, nil
	case "ctrl+o":
		if t := m.sess.threads[m.focused]; t != nil {
			for i := len(t.entries) - 1; i >= 0; i-- {
				if e := t.entries[i]; e.kind == entryTool {
					e.collapsed = !e.collapsed
					e.touch()
					break
				}
			}
		}
		return m, nil
	case "pgup", "pgdown", "home", "end":
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
	case "esc":
		if m.area == focusTree {
			m.area = focusComposer
			m.composer.Focus()
			return m, nil
		}
		m.focusThread(m.sess.root)
		return m, nil
	case "up", "down", "enter":
		if m.area == focusComposer {
			if mm, cmd, ok := m.slashMenuKey(k); ok {
				return mm, cmd
			}
		}
	case "tab":
		if m.area == focusComposer && len(m.slashMenu()) > 0 {
			mm, cmd, _ := m.slashMenuKey(k)
			return mm, cmd
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
		switch k {
		case "up", "k":
			m.selected = max(0, m.selected-1)
		case "down", "j":
			m.selected = min(len(order)-1, m.selected+1)
		case "enter":
			if m.selected < len(order) {
				m.focusThread(order[m.selected])
			}
			m.area = focusComposer
			m.composer.Focus()
		case "?":
			m.help = true
		}
		return m, nil
	}
	// Composer.
	switch k {
	case "?":
		if m.composer.Value() == "" {
			m.help = true
			return m, nil
		}
	case "enter":
		return m.send()
	case "up", "down":
		if m.composer.Value() == "" || m.histIdx != len(m.history) {
			if len(m.history) == 0 {
				return m, nil
			}
			if k == "up" {
				m.histIdx = max(0, m.histIdx-1)
			} else {
				m.histIdx = min(len(m.history), m.histIdx+1)
			}
			if m.histIdx < len(m.history) {
				m.composer.SetValue(m.history[m.histIdx])
			} else {
				m.composer.SetValue("")
			}
			return m, nil
		}
	}
	m.slashSel = 0 // the menu filter changes with what is typed
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg)
	return m, cmd
}

// approvalKey offers a key to the approval modal; done is false when the
// key belongs to the composer or the tree (the user is typing).
func (m *Model) approvalKey(k string, now, lastKey time.Time) (done bool, cmd tea.Cmd) {
	if !m.appr.focused {
		switch {
		case k == "tab" && !(m.area == focusComposer && strings.HasPrefix(m.composer.Value(), "/")):
			// Focusing decides nothing; answers still wait out the grace.
			m.appr.focused = true
			return true, nil
		case m.area == focusComposer && m.appr.mayTakeFocus(now, lastKey, m.composer.Value() != ""):
			m.appr.focused = true // the key below decides whether it stays
		default:
			return false, nil
		}
	}
	act, d := m.appr.key(k, now)
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
		m.flash = "interrupting · press ctrl+c again to quit"
		return m, m.submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: m.focused})
	}
	m.flash = "press ctrl+c again to quit"
	return m, nil
}

// send submits the composer text (or runs a slash command).
func (m Model) send() (tea.Model, tea.Cmd) {
	text := strings.TrimSpace(m.composerText())
	if text == "" {
		return m, nil
	}
	remember := m.remember(text)
	m.clearComposer()
	if strings.HasPrefix(text, "/") {
		mm, cmd := m.slash(text)
		return mm, tea.Batch(remember, cmd)
	}
	if m.backend == nil {
		return m, remember
	}
	// Shown at once, dimmed as queued, until the agent takes it.
	id, b := m.focused, m.backend
	if t := m.sess.threads[id]; t != nil {
		t.queued = append(t.queued, text)
	}
	return m, tea.Batch(remember, func() tea.Msg {
		if err := b.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: id, Text: text}); err != nil {
			return sendFailedMsg{thread: id, text: text, err: err}
		}
		return nil
	})
}

// sendFailedMsg: a message never reached the engine.
type sendFailedMsg struct {
	thread protocol.ThreadID
	text   string
	err    error
}

// Layout.

func (m Model) treeWidth() int {
	if !m.showTree || m.w < 60 {
		return 0
	}
	return min(44, max(24, m.w*3/10))
}

func (m Model) transcriptWidth() int {
	tw := m.treeWidth()
	if tw > 0 {
		return max(10, m.w-tw-3)
	}
	return max(10, m.w-2)
}

func (m Model) bodyHeight() int {
	return max(3, m.h-3-m.composer.Height()-len(m.slashMenu()))
}

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	if m.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.ReportFocus = true
	v.WindowTitle = "grove"
	return v
}

func (m Model) render() string {
	if m.w < 20 || m.h < 8 {
		return "grove: window too small"
	}
	var out []string
	out = append(out, m.headerLine())
	bh := m.bodyHeight()
	switch {
	case m.picker != nil:
		out = append(out, fit(m.picker.view(m.r, m.w, bh+m.composer.Height()+1), m.w, bh+m.composer.Height()+1)...)
		out = append(out, m.statusLine())
		return strings.Join(out, "\n")
	case m.help:
		out = append(out, fit(m.helpLines(), m.w, bh)...)
	case m.overlay != nil:
		out = append(out, fit(m.overlay.view(&m, m.w, bh), m.w, bh)...)
	default:
		out = append(out, m.bodyLines(bh)...)
	}
	out = append(out, m.composerLines()...)
	out = append(out, m.statusLine())
	return strings.Join(out, "\n")
}

func (m Model) headerLine() string {
	title := m.th.header.Render("grove")
	info := ""
	if m.backend != nil {
		info = " " + m.info.Model
		if m.info.Provider != "" {
			info += m.th.headerDim.Render(" · " + m.info.Provider)
		}
	}
	right := ""
	if m.info.Demo {
		right = m.th.demo.Render("offline demo model")
	}
	if m.sess.root != "" {
		right += m.th.headerDim.Render(" session " + m.sess.root.Short())
	}
	gap := m.w - lipglossWidth(title) - lipglossWidth(info) - lipglossWidth(right)
	if gap < 1 {
		return padRight(title+info+" "+right, m.w)
	}
	return title + info + strings.Repeat(" ", gap) + right
}

func (m Model) bodyLines(h int) []string {
	tw := m.treeWidth()
	xw := m.transcriptWidth()
	var right []string
	t := m.sess.threads[m.focused]
	if m.appr.current() != nil {
		// The asking agent's transcript stays visible above the modal.
		modal := m.r.modalLines(&m.appr, xw, h-3)
		if at := m.sess.threads[m.appr.asker(m.sess)]; at != nil {
			title := m.th.paneTitle.Render(roleLabel(at.info)) + m.th.warn.Render(" asks")
			right = append([]string{padRight(title, xw)}, m.r.transcriptLines(m.sess, at, xw, h-1-len(modal))...)
		}
		right = fit(right, xw, h-len(modal))
		right = append(right, modal...)
	} else if t != nil {
		title := m.th.paneTitle.Render(roleLabel(t.info)) + " " + m.r.threadGlyph(t) + m.th.dim.Render(" "+liveWord(t))
		if note := t.note(); note != "" {
			title += m.th.dim.Render(" · " + clip(note, xw/2))
		}
		if !t.follow {
			title += m.th.warn.Render(" · scrolled (end to follow)")
		}
		right = append([]string{padRight(title, xw)}, m.r.transcriptLines(m.sess, t, xw, h-1)...)
	} else {
		right = []string{m.th.dim.Render("no session open")}
	}
	right = fit(right, xw, h)
	if tw == 0 {
		return joinColumns(fit(nil, 1, h), right)
	}
	left := fit(m.treeLines(tw, h), tw, h)
	sep := make([]string, h)
	for i := range sep {
		sep[i] = m.th.paneBorder.Render(" │ ")
	}
	return joinColumns(left, sep, right)
}

func (m Model) treeLines(w, h int) []string {
	lines, _ := m.treeRows(w, h)
	return lines
}

// treeRows renders the tree and reports which thread each row shows
// ("" for title and detail rows), for mouse clicks.
func (m Model) treeRows(w, h int) ([]string, []protocol.ThreadID) {
	order := m.sess.treeOrder()
	lines := []string{m.th.paneTitle.Render("agents") + m.th.dim.Render(fmt.Sprintf(" %d", len(order)))}
	ids := []protocol.ThreadID{""}
	now := m.now()
	start := treeStart(order, m.selected, h-1, func(id protocol.ThreadID) int {
		return len(m.treeDetail(m.sess.threads[id])) + 1
	})
	for i, id := range order {
		if i < start {
			continue
		}
		if len(lines) >= h {
			break // only what fits is drawn
		}
		t := m.sess.threads[id]
		indent := m.treePrefix(t)
		elapsed := formatElapsed(t, now)
		label := roleLabel(t.info)
		left := indent + m.r.threadGlyph(t) + " " + label
		right := m.th.dim.Render(elapsed)
		line := padRight(left, w-lipglossWidth(right)-1) + " " + right
		style := m.th.assistant
		if t.closed {
			style = m.th.closed
		}
		if i == m.selected && m.area == focusTree {
			line = m.th.treeSel.Render(padRight(ansiStrip(line), w))
		} else if id == m.focused {
			line = m.th.treeSelBlur.Render(line)
		} else {
			line = style.Render(line)
		}
		lines = append(lines, line)
		ids = append(ids, id)
		for _, detail := range m.treeDetail(t) {
			sub := m.treeContinuation(t) + "  "
			lines = append(lines, m.th.treeDim.Render(padRight(sub+clip(detail, max(4, w-lipglossWidth(sub))), w)))
			ids = append(ids, "")
		}
	}
	return lines, ids
}

// treeDetail is the dim row under an agent (its note, else its model);
// the root has none.
func (m Model) treeDetail(t *threadView) []string {
	if t == nil || t.info.Depth == 0 {
		return nil
	}
	if note := t.note(); note != "" {
		return []string{note}
	}
	return nil
}

// treeStart is the first agent to draw so that the selected one is on
// screen: agents take rows(id) rows each and rows rows are available. It
// starts at the top while the selection fits there, else it ends the
// window on the selection.
func treeStart(order []protocol.ThreadID, selected, rows int, height func(protocol.ThreadID) int) int {
	if selected >= len(order) {
		selected = len(order) - 1
	}
	used := 0
	for i := 0; i <= selected; i++ {
		used += height(order[i])
	}
	if used <= rows {
		return 0
	}
	start, used := selected, height(order[selected])
	for start > 0 && used+height(order[start-1]) <= rows {
		start--
		used += height(order[start])
	}
	return start
}

// treePrefix draws the tree guides (├ └ │) in front of a node.
func (m Model) treePrefix(t *threadView) string {
	if t.info.ParentID == "" {
		return ""
	}
	guide := "├ "
	if m.isLastChild(t) {
		guide = "└ "
	}
	if p := m.sess.threads[t.info.ParentID]; p != nil {
		return m.treeContinuation(p) + guide
	}
	return guide
}

// treeContinuation is the guide column below a node (for its children).
func (m Model) treeContinuation(t *threadView) string {
	if t == nil || t.info.ParentID == "" {
		return ""
	}
	p := m.sess.threads[t.info.ParentID]
	bar := "│ "
	if m.isLastChild(t) {
		bar = "  "
	}
	return m.treeContinuation(p) + bar
}

func (m Model) isLastChild(t *threadView) bool {
	p := m.sess.threads[t.info.ParentID]
	return p == nil || len(p.children) == 0 || p.children[len(p.children)-1] == t.info.ID
}

// elapsed is how long the current (or last) turn ran; ok is false when
// that is unknown (a resumed session's threads).
func elapsed(t *threadView, now time.Time) (d time.Duration, ok bool) {
	if t.turnAt.IsZero() {
		return 0, false
	}
	end := now
	if !t.status.IsActive() {
		if t.statusAt.IsZero() {
			return 0, false
		}
		end = t.statusAt
	}
	return max(0, end.Sub(t.turnAt)), true
}

// formatElapsed renders elapsed as m:ss or hhmm; blank when unknown.
func formatElapsed(t *threadView, now time.Time) string {
	d, ok := elapsed(t, now)
	if !ok {
		return ""
	}
	if d < time.Hour {
		return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02d", int(d.Hours()), int(d.Minutes())%60)
}

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
		parts = append(parts, m.info.Model+" · "+m.info.Provider)
		parts = append(parts, shortenHome(m.info.Cwd))
		if t := m.sess.threads[m.focused]; t != nil {
			parts = append(parts, fmt.Sprintf("tokens %s/%s", humanTokens(t.usage.TotalTokens), humanTokens(total.TotalTokens)))
		}
		parts = append(parts, fmt.Sprintf("%d running", running))
		if n := len(m.appr.queue); n > 0 {
			parts = append(parts, m.th.warn.Render(fmt.Sprintf("%d approval(s)", n)))
		}
	}
	hint := m.th.statusKey.Render("tab") + " tree  " + m.th.statusKey.Render("ctrl+t") + " agents  " + m.th.statusKey.Render("?") + " help"
	if m.w < 100 {
		hint = m.th.statusKey.Render("?") + " help"
	}
	left := " " + strings.Join(parts, m.th.dim.Render(" │ "))
	// The hints stay; the session details give way (cut with an ellipsis).
	room := m.w - lipglossWidth(hint) - 2
	if room < 10 {
		return padRight(m.th.status.Render(left), m.w)
	}
	if lipglossWidth(left) > room {
		left = padRight(left, room)
	}
	gap := m.w - lipglossWidth(left) - lipglossWidth(hint) - 1
	return m.th.status.Render(left) + strings.Repeat(" ", max(0, gap)) + hint + " "
}

func shortenHome(p string) string {
	if h, err := os.UserHomeDir(); err == nil && h != "" && strings.HasPrefix(p, h) {
		return "~" + strings.TrimPrefix(p, h)
	}
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

// helpKeys lists the keys shown in ? help, in order.
var helpKeys = [][2]string{
	{"enter", "send to the focused agent"},
	{"shift+enter ctrl+j", "new line"},
	{"↑ ↓", "history (composer empty)"},
	{"ctrl+r", "search this project's input history"},
	{"tab", "switch between composer and agent tree"},
	{"↑ ↓ j k, enter", "in the tree: move, focus that agent (or click it)"},
	{"esc", "back to the root agent / close overlays"},
	{"pgup pgdn home end", "scroll the transcript (mouse wheel too)"},
	{"ctrl+o", "expand / collapse the last tool output"},
	{"ctrl+t", "agents table (sort with s, filter with /)"},
	{"ctrl+b", "show / hide the agent tree"},
	{"alt+m f2", "mouse capture on / off (off: select and copy text)"},
	{"ctrl+c", "interrupt the focused agent and its sub-agents; twice quits"},
	{"tab (approval)", "answer it; typing goes to the composer until then"},
	{"↑ ↓ enter", "approval: choose and answer"},
	{"y a n esc", "approval: once, for session (confirmed), deny, abort"},
}

func (m Model) helpLines() []string {
	k := m.th.key.Render
	kw := 0
	for _, h := range helpKeys {
		kw = max(kw, lipglossWidth(h[0]))
	}
	for _, c := range slashCommands {
		kw = max(kw, lipglossWidth(c.name))
	}
	row := func(key, what string) string {
		return k(key) + strings.Repeat(" ", kw-lipglossWidth(key)+2) + what
	}
	lines := []string{m.th.paneTitle.Render("Keys"), ""}
	for _, h := range helpKeys {
		lines = append(lines, row(h[0], h[1]))
	}
	lines = append(lines, "", m.th.paneTitle.Render("Commands"))
	for _, c := range slashCommands {
		lines = append(lines, row(c.name, c.help))
	}
	mouse := "on"
	if !m.mouse {
		mouse = "off"
	}
	lines = append(lines, "", m.th.dim.Render("mouse capture is "+mouse+" · press any key to close"))
	return lines
}
