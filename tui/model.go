package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
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
	// MCPServers describes the MCP servers, one line each, for /mcp (may be nil).
	MCPServers func() []string
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
	history  []string
	histIdx  int

	appr     approvals
	notifier *notifier

	overlay  *agentsOverlay
	help     bool
	picker   *picker
	quitHint time.Time
	flash    string

	events   <-chan protocol.Event
	unsub    func()
	quitting bool
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
	ta := textarea.New()
	ta.Placeholder = "Ask grove anything · / for commands · ? for help"
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.SetHeight(1)
	ta.MaxHeight = 6
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"))
	ta.Focus()
	m := Model{
		opts: opts, th: th, now: opts.Now,
		r:        &renderer{th: th, now: opts.Now},
		sess:     newSession(),
		composer: ta,
		showTree: true,
		notifier: newNotifier(opts.Notify),
		w:        80, h: 24,
	}
	m.appr.grace = approvalGrace
	if opts.ApprovalGrace != 0 {
		m.appr.grace = opts.ApprovalGrace
	}
	if opts.ApprovalGrace < 0 {
		m.appr.grace = 0
	}
	if opts.Backend != nil {
		m.attach(opts.Backend)
	}
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
	for _, ti := range b.Threads() {
		t := m.sess.ensure(ti)
		t.status = ti.Status
		t.loadHistory(b.History(ti.ID))
	}
	for _, r := range b.PendingApprovals() {
		m.appr.push(r, m.now())
	}
	m.focused = b.RootID()
	m.selected = 0
}

// Run starts the program and blocks until the user quits or ctx ends.
func Run(ctx context.Context, opts Options) error {
	m := NewModel(opts)
	p := tea.NewProgram(m, tea.WithContext(ctx))
	final, err := p.Run()
	// The final model holds the current subscription (sessions may have
	// been swapped); ending it stops the event reader.
	if fm, ok := final.(Model); ok && fm.unsub != nil {
		fm.unsub()
	} else if m.unsub != nil {
		m.unsub()
	}
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// eventFrame is how long the event reader keeps collecting after the first
// event of a batch. Bubble Tea calls View after every message, so a flood
// of small batches (100 agents streaming) would cost a full render each;
// one batch per frame bounds the renders to the frame rate and adds at
// most one frame of latency to a lone event.
const eventFrame = time.Second / 60

// maxEventBatch bounds a batch so one Update never holds a huge slice.
const maxEventBatch = 4096

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
		frame := time.NewTimer(eventFrame)
		defer frame.Stop()
		for len(batch) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{events: batch, closed: true}
				}
				batch = append(batch, ev)
			case <-frame.C:
				return eventsMsg{events: batch}
			}
		}
		return eventsMsg{events: batch}
	}
}

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Init starts reading events and sends the initial prompt.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitEvents(m.events), tick()}
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
		if !msg.closed {
			cmds = append(cmds, waitEvents(m.events))
		} else if m.quitting {
			cmds = append(cmds, tea.Quit)
		}
		return m, tea.Batch(cmds...)
	case tickMsg:
		m.r.frame++
		return m, tick()
	case flashMsg:
		m.flash = string(msg)
		return m, nil
	case backendMsg:
		if msg.err != nil {
			m.flash = msg.err.Error()
			return m, nil
		}
		m.attach(msg.b)
		m.picker = nil
		return m, waitEvents(m.events)
	case pickerLoadedMsg, pickerPreviewMsg:
		if m.picker != nil {
			return m, m.picker.update(msg)
		}
		return m, nil
	case tea.PasteMsg:
		if m.picker == nil && m.overlay == nil {
			var cmd tea.Cmd
			m.composer, cmd = m.composer.Update(msg)
			m.resizeComposer()
			return m, cmd
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
			cmds = append(cmds, m.notifier.notify(NotifyApprovalRequested, "grove: approval needed: "+approvalSummary(*ev.Approval)))
		case protocol.EventApprovalResolved:
			m.appr.remove(ev.Approval.ID, m.now())
		case protocol.EventBackground:
			if ev.Background != nil && ev.Background.IsFinal && !ev.Background.Warning {
				cmds = append(cmds, m.notifier.notify(NotifySubAgentComplete, clip(ev.Background.Message, 200)))
			}
		case protocol.EventTurnCompleted:
			if ev.ThreadID == m.sess.root {
				cmds = append(cmds, m.notifier.notify(NotifyTurnComplete, "grove: "+clip(firstLine(ev.Message), 160)))
			}
		case protocol.EventShutdownComplete:
			if m.quitting {
				cmds = append(cmds, tea.Quit)
			}
		}
	}
	return cmds
}

func approvalSummary(r protocol.ApprovalRequest) string {
	switch r.Kind {
	case protocol.ApprovalWorkingDir:
		return "work in " + r.Dir
	case protocol.ApprovalExec:
		return clip(r.Command, 80)
	}
	return strings.Join(r.Files, ", ")
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

func (m *Model) resizeComposer() {
	lines := strings.Count(m.composer.Value(), "\n") + 1
	m.composer.SetHeight(min(6, max(1, lines)))
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
	if m.appr.current() != nil {
		if !m.appr.accepting(m.now()) {
			return m, nil // grace period: swallow
		}
		if d, ok := decisionFor(k); ok {
			req := *m.appr.current()
			m.appr.remove(req.ID, m.now())
			return m, m.submit(protocol.Op{Type: protocol.OpApproval, ThreadID: req.ThreadID, ApprovalID: req.ID, Decision: d})
		}
		return m, nil
	}
	if m.picker != nil {
		done, cmd := m.picker.key(msg)
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
	if m.overlay != nil {
		jump, closeIt := m.overlay.key(msg)
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
	case "tab":
		if strings.HasPrefix(m.composer.Value(), "/") && !strings.Contains(m.composer.Value(), " ") {
			if c := completeSlash(m.composer.Value()); c != "" {
				m.composer.SetValue(c)
				m.composer.CursorEnd()
			}
			return m, nil
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
			m.resizeComposer()
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg)
	m.resizeComposer()
	return m, cmd
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
		m.composer.Reset()
		m.resizeComposer()
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
	text := strings.TrimSpace(m.composer.Value())
	if text == "" {
		return m, nil
	}
	m.history = append(m.history, text)
	m.histIdx = len(m.history)
	m.composer.Reset()
	m.resizeComposer()
	if strings.HasPrefix(text, "/") {
		return m.slash(text)
	}
	if m.backend == nil {
		return m, nil
	}
	return m, m.submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: m.focused, Text: text})
}

var slashCommands = []struct{ name, help string }{
	{"/resume", "resume a past session"},
	{"/new", "start a new session"},
	{"/agents", "table of every agent (ctrl+t)"},
	{"/model", "set the model: /model <name> [effort]"},
	{"/note", "set the focused agent's note: /note <text>"},
	{"/mcp", "MCP servers: state, tools, errors"},
	{"/help", "show keys and commands"},
	{"/quit", "quit grove"},
}

func completeSlash(prefix string) string {
	var hits []string
	for _, c := range slashCommands {
		if strings.HasPrefix(c.name, prefix) {
			hits = append(hits, c.name)
		}
	}
	if len(hits) == 1 {
		return hits[0] + " "
	}
	return ""
}

func (m Model) slash(text string) (tea.Model, tea.Cmd) {
	cmd, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case "/quit", "/exit":
		m.quitting = true
		return m, tea.Batch(m.submit(protocol.Op{Type: protocol.OpShutdown}), tea.Quit)
	case "/help":
		m.help = true
	case "/agents":
		m.overlay = newAgentsOverlay()
	case "/resume":
		home := m.opts.Home
		if m.backend != nil {
			home = m.info.Home
		}
		m.picker = newPicker(home, m.now)
		return m, m.picker.load()
	case "/new":
		if m.opts.NewSession == nil {
			m.flash = "/new is not available here"
			return m, nil
		}
		f := m.opts.NewSession
		return m, func() tea.Msg {
			b, err := f()
			return backendMsg{b: b, err: err}
		}
	case "/note":
		return m, m.submit(protocol.Op{Type: protocol.OpSetNote, ThreadID: m.focused, Note: arg})
	case "/model":
		if arg == "" {
			m.flash = "model: " + m.info.Model + " · usage: /model <name> [effort]"
			if list := m.opts.Models; list != nil {
				cur := m.flash
				// The provider's list may need a request: fetch it off the UI loop.
				return m, func() tea.Msg {
					if names := list(); len(names) > 0 {
						return flashMsg(cur + " · available: " + strings.Join(names, ", "))
					}
					return nil
				}
			}
			return m, nil
		}
		name, effort, _ := strings.Cut(arg, " ")
		m.info.Model = name
		return m, m.submit(protocol.Op{Type: protocol.OpSetModel, ThreadID: m.focused, Model: name, ReasoningEffort: strings.TrimSpace(effort)})
	case "/mcp":
		if m.opts.MCPServers == nil {
			m.flash = "no MCP servers configured ([mcp_servers] in config.toml, or .mcp.json)"
			return m, nil
		}
		list := m.opts.MCPServers
		return m, func() tea.Msg {
			lines := list()
			if len(lines) == 0 {
				return flashMsg("no MCP servers configured ([mcp_servers] in config.toml, or .mcp.json)")
			}
			return flashMsg("MCP: " + strings.Join(lines, " · "))
		}
	default:
		m.flash = "unknown command " + cmd + " · /help lists commands"
	}
	return m, nil
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
	return max(3, m.h-3-m.composer.Height())
}

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
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
		modal := m.r.modalLines(&m.appr, xw, m.now())
		pad := max(0, (h-len(modal))/2)
		right = make([]string, pad)
		for _, l := range modal {
			right = append(right, padRight(strings.Repeat(" ", max(0, (xw-lipglossWidth(modal[0]))/2))+l, xw))
		}
	} else if t != nil {
		title := m.th.paneTitle.Render(roleLabel(t.info)) + " " + m.r.statusGlyph(t.status) + m.th.dim.Render(" "+statusWord(t.status))
		if t.info.Note != "" {
			title += m.th.dim.Render(" · " + clip(t.info.Note, xw/2))
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
	start := 0
	if m.selected >= h-1 {
		start = m.selected - (h - 2)
	}
	for i, id := range order {
		if i < start {
			continue
		}
		t := m.sess.threads[id]
		indent := m.treePrefix(t)
		elapsed := formatElapsed(t, now)
		label := roleLabel(t.info)
		left := indent + m.r.statusGlyph(t.status) + " " + label
		right := m.th.dim.Render(elapsed)
		line := padRight(left, w-lipglossWidth(right)-1) + " " + right
		style := m.th.assistant
		if t.status.Kind == protocol.StatusShutdown {
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
		sub := m.treeContinuation(t) + "  "
		detail := t.info.Note
		if detail == "" {
			detail = t.info.Model
		}
		if detail != "" && t.info.Depth > 0 {
			lines = append(lines, m.th.treeDim.Render(padRight(sub+clip(detail, max(4, w-len(sub))), w)))
			ids = append(ids, "")
		}
	}
	return lines, ids
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

func formatElapsed(t *threadView, now time.Time) string {
	if t.info.StartedAt.IsZero() {
		return ""
	}
	end := now
	if !t.status.IsActive() && !t.statusAt.IsZero() {
		end = t.statusAt
	}
	d := end.Sub(t.info.StartedAt)
	if d < 0 {
		d = 0
	}
	if d < time.Hour {
		return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02d", int(d.Hours()), int(d.Minutes())%60)
}

func (m Model) composerLines() []string {
	target := "root"
	if t := m.sess.threads[m.focused]; t != nil {
		target = roleLabel(t.info)
	}
	label := m.th.dim.Render(" to " + target + " ")
	border := m.th.composerBorder.Render(strings.Repeat("─", max(0, m.w-lipglossWidth(label)-2)))
	lines := []string{m.th.composerBorder.Render("──") + label + border}
	if v := m.composer.Value(); strings.HasPrefix(v, "/") && !strings.Contains(v, " ") {
		var hints []string
		for _, c := range slashCommands {
			if strings.HasPrefix(c.name, v) {
				hints = append(hints, m.th.key.Render(c.name)+m.th.dim.Render(" "+c.help))
			}
		}
		if len(hints) > 0 {
			lines[0] = padRight(" "+strings.Join(hints, "  "), m.w)
		}
	}
	for _, l := range strings.Split(m.composer.View(), "\n") {
		lines = append(lines, padRight(" "+l, m.w))
	}
	return lines
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
	left := " " + strings.Join(parts, m.th.dim.Render(" │ "))
	gap := m.w - lipglossWidth(left) - lipglossWidth(hint) - 1
	if gap < 1 {
		return padRight(m.th.status.Render(left), m.w)
	}
	return m.th.status.Render(left) + strings.Repeat(" ", gap) + hint + " "
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

func (m Model) helpLines() []string {
	k := m.th.key.Render
	lines := []string{
		m.th.paneTitle.Render("Keys"),
		"",
		k("enter") + "            send to the focused agent",
		k("shift+enter ctrl+j") + " new line",
		k("↑ ↓") + "              history (composer empty)",
		k("tab") + "              switch between composer and agent tree",
		k("↑ ↓ j k, enter") + "   in the tree: move, focus that agent (or click it)",
		k("esc") + "              back to the root agent / close overlays",
		k("pgup pgdn home end") + " scroll the transcript (mouse wheel too)",
		k("ctrl+o") + "           expand / collapse the last tool output",
		k("ctrl+t") + "           agents table (sort with s, filter with /)",
		k("ctrl+b") + "           show / hide the agent tree",
		k("ctrl+c") + "           interrupt the focused agent and its sub-agents; twice quits",
		k("y a n esc") + "        approval: approve, for session, deny, abort",
		"",
		m.th.paneTitle.Render("Commands"),
	}
	for _, c := range slashCommands {
		lines = append(lines, k(fmt.Sprintf("%-8s", c.name))+"         "+c.help)
	}
	lines = append(lines, "", m.th.dim.Render("press any key to close"))
	return lines
}
