package tui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/app"
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
	// Rewind opens a fork of session id cut before its userTurns-th last
	// user message (Esc-Esc) and returns that message's text.
	Rewind func(id string, userTurns int) (Backend, string, error)
	// Models lists model names for /model completion (may be nil).
	Models func() []string
	// MCPServers describes the MCP servers, one line each, for /mcp (may be nil).
	MCPServers func() []string
	// Processes lists the running sessions for /ps, KillProcess kills one
	// (may be nil: ps.go).
	Processes   func() []ProcessInfo
	KillProcess func(id int) error
	// Cost is the estimated USD cost of usage on model, false when the
	// model has no price (nil: no costs shown; cost.go).
	Cost func(model string, u protocol.TokenUsage) (float64, bool)
	// ContextLimits is a model's context window and the token count at
	// which its threads compact by themselves (0: unknown); called off the
	// UI loop, once per model (nil: no gauge).
	ContextLimits func(model string) (window, compactAt int64)
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
	procs   *procCache // running sessions for the tree (ps.go)
	backend Backend
	// opening is the session being prepared at start (Run), nil once
	// attached: the screen says so meanwhile.
	opening Backend
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

	composer editor
	pastes   pastes   // text behind the composer's paste chips
	history  []string // inputs of this project, oldest first
	histIdx  int
	histPath string
	search   *historySearch // ctrl+r in progress
	tsearch  *transcriptSearch
	slashSel int // highlighted row of the slash menu
	skillSel int // highlighted row of the $ skill picker (skill_picker.go)

	// models is the provider's model list, fetched once on demand.
	models       []string
	modelsLoaded bool

	appr approvals
	// quest holds request_user_input's question cards (question.go).
	quest    questionCards
	notifier *notifier

	overlay  *agentsOverlay
	review   *diffReview // the diff review screen (diffreview.go)
	help     bool
	helpTop  int // first shown line of the help when it scrolls
	picker   *picker
	quitHint time.Time
	flash    string
	// escAt is when esc was pressed on an idle agent: a second esc soon
	// after edits the previous message (focus.go).
	escAt time.Time
	// rewind is the user message esc-esc selected, counted from the last
	// (1); 0 when none is (rewind.go).
	rewind int
	// limits are the context limits of each model seen (context_gauge.go).
	limits map[string]contextLimits

	events   <-chan protocol.Event
	unsub    func()
	quitting bool
	// ticking: the 10 Hz animation tick is scheduled (only while an agent
	// runs: spinners and elapsed times move).
	ticking bool
	// graceEnd is the end of the input grace a redraw is armed for
	// (approval_grace.go).
	graceEnd time.Time
	// realClock: now is the wall clock (not a test's), so ticks in real
	// time match it.
	realClock bool
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

// backendMsg carries a backend opened and prepared off the UI goroutine.
type backendMsg struct {
	o   opened
	err error
	// draft is a rewound message to put in the composer.
	draft string
}

type flashMsg string

// NewModel builds the TUI model, with opts.Backend attached (its threads
// rebuilt) before it returns.
func NewModel(opts Options) Model { return newModel(opts, false) }

// newModel builds the model; with openLater, opts.Backend is prepared by
// Init's command instead, so the first frame (an "opening" screen) does
// not wait for a long session's replay.
func newModel(opts Options, openLater bool) Model {
	realClock := opts.Now == nil
	if realClock {
		opts.Now = time.Now
	}
	th := newTheme()
	ta := newComposer()
	m := Model{
		opts: opts, th: th, now: opts.Now, procs: &procCache{src: opts.Processes},
		r:        &renderer{th: th, now: opts.Now},
		sess:     newSession(),
		composer: ta,
		showTree: true,
		notifier: newNotifier(opts.Notify),
		w:        80, h: 24,
		mouse: true, realClock: realClock,
	}
	m.appr.grace = approvalGrace
	m.quest.grace = approvalGrace
	if opts.ApprovalGrace != 0 {
		m.appr.grace = opts.ApprovalGrace
	}
	if opts.ApprovalGrace < 0 {
		m.appr.grace = 0
	}
	if opts.Backend != nil && openLater {
		m.opening = opts.Backend
		m.info = opts.Backend.Info()
	} else if opts.Backend != nil {
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

// attach switches to a backend, preparing it here (tests, NewModel).
func (m *Model) attach(b Backend) { m.attachOpened(prepare(b)) }

// attachOpened switches to a prepared backend: a swap, cheap on the UI
// goroutine.
func (m *Model) attachOpened(o opened) {
	if m.unsub != nil {
		m.unsub()
	}
	b := o.b
	m.backend = b
	m.info = b.Info()
	m.events, m.unsub = o.events, o.unsub
	m.sess = o.sess
	if o.warn != "" {
		m.flash = o.warn
	}
	if root := m.sess.threads[b.RootID()]; root != nil {
		for _, w := range m.info.Warnings {
			root.add(&entry{kind: entryWarning, text: w})
		}
	}
	for _, r := range o.pending {
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
	m := newModel(opts, true)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithFPS(rendererFPS))
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

// rendererFPS caps how often Bubble Tea's renderer draws while things move.
// The pinned fork (tui/third_party/bubbletea) stops its ticker once nothing
// changes, so an idle grove does not wake at all; upstream's ticker runs at
// this rate forever (charmbracelet/bubbletea#1796, #1776). 30 draws a key or
// a streamed token within 33 ms at half the cost of the default 60.
const rendererFPS = 30

// eventFrame is how long the event reader keeps collecting after the first
// event of a batch. Bubble Tea calls View after every message, so a flood
// of small batches (100 agents streaming) would cost a full render each;
// one batch per frame bounds the renders to the frame rate and adds at
// most one frame of latency to a lone event.
const eventFrame = time.Second / rendererFPS

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
		batch := []protocol.Event{visibleEvent(ev)}
		frame := time.NewTimer(eventFrame)
		defer frame.Stop()
		for len(batch) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{events: batch, closed: true}
				}
				batch = append(batch, visibleEvent(ev))
			case <-frame.C:
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
	cmds := []tea.Cmd{waitEvents(m.events), m.notifier.checkPassthrough(), m.loadHistoryCmd(), m.scanResumed()}
	if m.ticking {
		cmds = append(cmds, tick())
	}
	if m.picker != nil {
		cmds = append(cmds, m.picker.load())
	}
	if m.opening != nil {
		cmds = append(cmds, openCmd(m.opening))
	}
	cmds = append(cmds, m.initialPrompt())
	return tea.Batch(cmds...)
}

// initialPrompt sends Options.InitialPrompt as the first turn once a
// session is attached.
func (m Model) initialPrompt() tea.Cmd {
	if m.opts.InitialPrompt == "" || m.backend == nil {
		return nil
	}
	b, root, text := m.backend, m.backend.RootID(), m.opts.InitialPrompt
	return func() tea.Msg {
		if err := b.Turn(app.Turn{Thread: root, Text: text}); err != nil {
			return flashMsg("send: " + err.Error())
		}
		return nil
	}
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

// configure sends a settings change through the session core; what it
// refuses is flashed in its words.
func (m *Model) configure(thread protocol.ThreadID, o protocol.TurnOverrides) tea.Cmd {
	if m.backend == nil {
		return nil
	}
	b := m.backend
	return func() tea.Msg {
		if err := b.Configure(thread, o); err != nil {
			return flashMsg(err.Error())
		}
		return nil
	}
}

// Update routes messages; when a modal's input grace runs, it arms the
// redraw that shows the grace has ended.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	if mm, ok := next.(Model); ok {
		if tick := mm.graceTick(); tick != nil {
			return mm, tea.Batch(cmd, tick)
		}
	}
	return next, cmd
}

// update routes messages.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if next, cmd, ok := m.updateFromGrove(msg); ok {
		return next, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.composer.MaxHeight = composerMaxRows(m.h)
		m.composer.SetWidth(max(10, m.w-2))
		m.composer.scrollToCursor()
		return m, nil
	case tea.FocusMsg:
		m.notifier.focused = true
		return m, nil
	case tea.BlurMsg:
		m.notifier.focused = false
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

// updateFromEngine applies engine events and the timers and notices that follow them.
func (m Model) updateFromEngine(msg tea.Msg) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case eventsMsg:
		cmds := m.applyEvents(msg.events)
		cmds = append(cmds, m.wantLimits(msg.events)...)
		if strings.HasPrefix(m.flash, flashInterrupting) && !m.running() {
			m.flash = "" // the turn ended: nothing is interrupting any more
		}
		cmds = append(cmds, m.ensureTick())
		if !msg.closed {
			cmds = append(cmds, waitEvents(m.events))
		} else if m.quitting {
			cmds = append(cmds, tea.Quit)
		}
		return m, tea.Batch(cmds...), true
	case tickMsg:
		m.r.frame++
		if !m.running() {
			m.ticking = false // nothing animates: the program sleeps until an event or a key
			return m, nil, true
		}
		return m, tick(), true
	case reviewDoneMsg:
		m.reviewDone(msg)
		return m, nil, true
	case flashMsg:
		m.flash = string(msg)
		return m, nil, true
	case passthroughMsg:
		if msg.off {
			m.notifier.noPassthrough = true
			m.flash = "tmux allow-passthrough is off: notifications ring the bell (set -g allow-passthrough on for OSC 9)"
		}
		return m, nil, true
	}
	return m, nil, false
}

// updateFromGrove applies the messages grove's own commands send (engine events, ticks,
// loaded history, sessions, models, the picker); ok is false for a terminal message.
func (m Model) updateFromGrove(msg tea.Msg) (Model, tea.Cmd, bool) {
	next, cmd, ok := m.updateFromEngine(msg)
	if ok {
		return next, cmd, true
	}
	switch msg := msg.(type) {
	case historyLoadedMsg:
		if msg.path == m.histPath {
			// Stored inputs go before this run's (sent before they loaded).
			m.history = append(msg.lines, m.history...)
			m.histIdx = len(m.history)
		}
		if msg.err != nil {
			m.flash = msg.err.Error()
		}
		return m, nil, true
	case sessionsMsg:
		if m.composer.Value() == msg.line {
			m.completeArg(msg.line, msg.ids)
		}
		return m, nil, true
	case resumeFoundMsg:
		return m, m.openSession(msg.id), true
	case resumedStatsMsg:
		m.applyResumed(msg)
		if t := m.sess.threads[msg.id]; t != nil {
			return m, m.lookupLimits(t.info.Model), true
		}
		return m, nil, true
	case contextLimitsMsg:
		if m.limits == nil {
			m.limits = map[string]contextLimits{}
		}
		m.limits[msg.model] = msg.limits
		return m, nil, true
	case sendFailedMsg:
		if t := m.sess.threads[msg.thread]; t != nil {
			t.unqueue(msg.text)
			// The whole reason, in the transcript where it wraps: the
			// status line would cut it (issue 35 item 4).
			t.add(&entry{kind: entryError, text: "not sent: " + msg.err.Error()})
			t.follow = true
		}
		m.flash = "not sent: " + msg.err.Error()
		return m, nil, true
	case backendMsg:
		if msg.err != nil {
			m.flash = msg.err.Error()
			return m, nil, true
		}
		before, first := m.histPath, m.opening != nil
		m.attachOpened(msg.o)
		if msg.draft != "" {
			m.putDraft(msg.draft)
		}
		m.opening = nil
		m.picker = nil
		cmds := []tea.Cmd{waitEvents(m.events), m.ensureTick(), m.scanResumed()}
		if m.histPath != before {
			cmds = append(cmds, m.loadHistoryCmd())
		}
		if first {
			cmds = append(cmds, m.initialPrompt())
		}
		return m, tea.Batch(cmds...), true
	case modelsMsg:
		m.models, m.modelsLoaded = msg.names, true
		return m, m.afterModels(msg), true
	case pickerLoadedMsg, pickerPreviewMsg:
		if m.picker != nil {
			return m, m.picker.update(msg), true
		}
		return m, nil, true
	}
	return m, nil, false
}

// applyEvents folds engine events into the session and decides
// notifications.
func (m *Model) applyEvents(evs []protocol.Event) []tea.Cmd {
	var cmds []tea.Cmd
	for _, ev := range evs {
		if m.sess.replayed(ev) {
			continue // already shown from the rollout
		}
		m.sess.apply(ev)
		msg, err := ev.Msg()
		if err != nil {
			continue // malformed: apply skipped it too
		}
		switch msg := msg.(type) {
		case protocol.ApprovalRequestedMsg:
			m.appr.push(msg.Request, m.now())
			cmds = append(cmds, m.notifier.notify(NotifyApprovalRequested, "grove: approval needed: "+plainSummary(approvalSummary(msg.Request), 160)))
		case protocol.ApprovalResolvedMsg:
			m.appr.remove(msg.Request.ID, m.now())
		case protocol.UserInputRequestedMsg:
			m.quest.push(msg.Request, m.now(), strings.TrimSpace(m.composer.Value()) != "")
			cmds = append(cmds, m.notifier.notify(NotifyApprovalRequested, "grove: a question for you: "+plainSummary(cardText(firstQuestion(msg.Request)), 160)))
		case protocol.UserInputResolvedMsg:
			m.quest.remove(msg.Request.ID, m.now())
		case protocol.BackgroundMsg:
			if bg := msg.Event; bg.IsFinal && !bg.Warning {
				label := "agent " + bg.ChildID.Short()
				if c := m.sess.threads[bg.ChildID]; c != nil {
					label = c.fullName()
				}
				if text, ok := childNotice(label, bg.Status); ok {
					cmds = append(cmds, m.notifier.notify(NotifySubAgentComplete, text))
				}
			}
		case protocol.ContextCompactedMsg:
			if strings.HasPrefix(m.flash, flashCompacting) {
				m.flash = "" // the transcript's marker says it is done (issue 35 item 18)
			}
		case protocol.TurnCompletedMsg:
			if strings.HasPrefix(m.flash, flashCompacting) && ev.ThreadID == m.focused {
				m.flash = ""
			}
			if ev.ThreadID == m.sess.root {
				cmds = append(cmds, m.notifier.notify(NotifyTurnComplete, "grove: "+plainSummary(msg.LastMessage, 160)))
			}
		case protocol.ShutdownCompleteMsg:
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
		t.follow = true // what was sent, and the answer, are at the bottom (issue 35 item 8)
	}
	return m, tea.Batch(remember, func() tea.Msg {
		if err := b.Turn(app.Turn{Thread: id, Text: text}); err != nil {
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
