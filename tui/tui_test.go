package tui

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

func TestMain(m *testing.M) {
	// teatest parks a goroutine on SIGINT for the life of the process.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
		// chroma's regexps (code blocks in Markdown) run a shared clock that
		// stops itself a second after the last match.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestModel(t *testing.T, w, h int, fb *fakeBackend) (Model, *clock) {
	t.Helper()
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: fb, Now: c.now})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return mm.(Model), c
}

func feed(m Model, evs ...protocol.Event) Model {
	mm, _ := m.Update(eventsMsg{events: evs})
	return mm.(Model)
}

func press(m Model, k string) (Model, tea.Cmd) {
	var msg tea.KeyPressMsg
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		msg = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		msg = tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "backspace":
		msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+f":
		msg = tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}
	case "ctrl+o":
		msg = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+c":
		msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+t":
		msg = tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}
	case "ctrl+j":
		msg = tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	default:
		r := []rune(k)[0]
		msg = tea.KeyPressMsg{Code: r, Text: k}
	}
	mm, cmd := m.Update(msg)
	return mm.(Model), cmd
}

func typeText(m Model, s string) Model {
	for _, r := range s {
		m, _ = press(m, string(r))
	}
	return m
}

// screen is the plain text a person sees (ANSI stripped, trailing spaces cut).
func screen(m Model) string {
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// golden compares a screen with testdata/<Test>/<name>.golden (refresh
// with go test ./tui -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	t.Run(name, func(t *testing.T) { goldenScreen(t, got) })
}

// goldenScreen compares a screen with testdata/<Test>.golden.
func goldenScreen(t *testing.T, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", t.Name()+".golden"), []byte(got))
}

func checkSize(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("line %d is %d wide (max %d): %q", i, n, w, l)
		}
	}
}

func TestGoldenTreeAndCards(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, treeScenario()...)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "tree_"+sizeName(size), s)
		for _, want := range []string{"root", "(expl", "careful (", "quick (", "✓", "✗", "■"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: screen lacks %q", size, want)
			}
		}
	}
}

func sizeName(s [2]int) string { return fmt.Sprintf("%dx%d", s[0], s[1]) }

func itoa(n int) string { return strconv.Itoa(n) }

func TestStatusCardEveryState(t *testing.T) {
	states := map[string]protocol.AgentStatus{
		"pending_init": protocol.PendingInit(), "running": protocol.Running(),
		"completed": protocol.Completed("found it in parse.go:42", true), "errored": protocol.Errored("HTTP 500"),
		"shutdown": protocol.Shutdown(),
	}
	for name, st := range states {
		m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
		m = feed(m,
			toolBegin(rootID, "s1", "spawn_agent", `{"agent_type":"explorer","message":"look"}`),
			started(child(explorerID, "explorer", "", "find the parser", 1, rootID), 2*time.Second),
			toolEnd(rootID, "s1", "spawn_agent", `{}`, `{"agent_id":"`+string(explorerID)+`"}`, explorerID),
			status(explorerID, st, 10*time.Second),
		)
		s := screen(m)
		golden(t, "card_"+name, s)
		if !strings.Contains(s, "spawn_agent") || !strings.Contains(s, "find the parser") || !strings.Contains(s, statusWord(st)) {
			t.Errorf("%s card:\n%s", name, s)
		}
	}
}

func TestCardUpdatesInPlace(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	m = feed(m,
		toolBegin(rootID, "s1", "spawn_agent", `{"agent_type":"worker","message":"go"}`),
		started(child(workerID, "worker", "", "n", 1, rootID), 2*time.Second),
		toolEnd(rootID, "s1", "spawn_agent", `{}`, `{}`, workerID),
		status(workerID, protocol.Running(), 3*time.Second))
	if !strings.Contains(screen(m), "running") {
		t.Fatal("not running")
	}
	before := strings.Count(screen(m), "spawn_agent")
	m = feed(m, status(workerID, protocol.Completed("all done", true), 9*time.Second))
	s := screen(m)
	if !strings.Contains(s, "completed") || !strings.Contains(s, "all done") || strings.Count(s, "spawn_agent") != before {
		t.Fatalf("card did not update in place:\n%s", s)
	}
}

func approvalEvent() protocol.Event {
	e := ev(protocol.EventApprovalRequested, workerID, 5*time.Second)
	e.Approval = &protocol.ApprovalRequest{ID: "ap1", ThreadID: workerID, RouteThreadID: rootID, Kind: protocol.ApprovalWorkingDir,
		Chain: []string{"root", "orchestrator", "worker (new)"}, Dir: "/work/project/service", Cwd: "/work/project",
		Reason: "orchestrator wants to start a worker agent in /work/project/service"}
	return e
}

func TestGoldenApprovalModal(t *testing.T) {
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 80, 24, fb)
	m = feed(m, approvalEvent())
	c.t = c.t.Add(pause) // read after its input grace
	s := screen(m)
	golden(t, "approval_80x24", s)
	if !strings.Contains(s, "root → orchestrator → worker (new)") || !strings.Contains(s, "/work/project/service") {
		t.Fatalf("modal:\n%s", s)
	}
	// After the grace period, on an idle keyboard, y answers.
	m, cmd := press(m, "y")
	runCmd(cmd)
	ops := fb.Ops()
	if len(ops) != 1 || ops[0].Type != protocol.OpApproval || ops[0].ApprovalID != "ap1" || ops[0].Decision != protocol.DecisionApproved {
		t.Fatalf("ops %+v", ops)
	}
	if m.appr.current() != nil {
		t.Fatal("modal still shown")
	}
	// Two queued requests show a count; resolving elsewhere dequeues.
	m = feed(m, approvalEvent())
	second := approvalEvent()
	second.Approval = &protocol.ApprovalRequest{ID: "ap2", ThreadID: rootID, Kind: protocol.ApprovalExec, Command: "rm -rf build", Cwd: "/work/project"}
	m = feed(m, second)
	if !strings.Contains(screen(m), "(1 of 2)") {
		t.Fatalf("no count:\n%s", screen(m))
	}
	res := ev(protocol.EventApprovalResolved, workerID, 6*time.Second)
	res.Approval = &protocol.ApprovalRequest{ID: "ap1"}
	m = feed(m, res)
	if s := screen(m); !strings.Contains(s, "rm -rf build") || strings.Contains(s, "of 2") {
		t.Fatalf("after resolve:\n%s", s)
	}
}

func runCmd(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			runCmd(c)
		}
	}
}

func TestGoldenAgentsOverlay(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, treeScenario()...)
		m, _ = press(m, "ctrl+t")
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "overlay_"+sizeName(size), s)
		// Enter jumps to the selected agent.
		m, _ = press(m, "down")
		m, _ = press(m, "enter")
		if m.overlay != nil || m.focused == rootID {
			t.Fatalf("enter did not jump: focused %s", m.focused)
		}
	}
}

func TestGoldenPicker(t *testing.T) {
	saved := dirGone
	dirGone = func(string) bool { return false } // its made-up /work/project exists
	defer func() { dirGone = saved }()
	home := t.TempDir()
	for i, p := range []string{"refactor the parser", "add leap-year tests", "write the changelog"} {
		_ = rollout.AppendIndex(home, rollout.IndexEntry{ID: protocol.ThreadID("0000000" + itoa(i) + "-0000-7000-8000-00000000000" + itoa(i)), Cwd: "/work/project", UpdatedAt: t0.Add(-time.Duration(3-i) * time.Hour), FirstPrompt: p, ChildCount: i})
	}
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		c := &clock{t: t0}
		m := NewModel(Options{StartInPicker: true, Home: home, Now: c.now})
		mm, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = mm.(Model)
		mm, _ = m.Update(m.picker.load()())
		m = mm.(Model)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "picker_"+sizeName(size), s)
		if !strings.Contains(s, "write the changelog") || strings.Index(s, "write the changelog") > strings.Index(s, "refactor the parser") {
			t.Fatalf("newest first:\n%s", s)
		}
		m = typeText(m, "leap")
		if s := screen(m); !strings.Contains(s, "add leap-year tests") || strings.Contains(s, "write the changelog") {
			t.Fatalf("fuzzy filter:\n%s", s)
		}
	}
}

func TestComposerSendNewlineHistory(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 80, 24, fb)
	m = typeText(m, "first line")
	m, _ = press(m, "ctrl+j")
	m = typeText(m, "second")
	if v := m.composer.Value(); v != "first line\nsecond" {
		t.Fatalf("newline: %q", v)
	}
	m, cmd := press(m, "enter")
	runCmd(cmd)
	ops := fb.Ops()
	if len(ops) != 1 || ops[0].Type != protocol.OpUserTurn || ops[0].Text != "first line\nsecond" || ops[0].ThreadID != rootID {
		t.Fatalf("ops %+v", ops)
	}
	if m.composer.Value() != "" {
		t.Fatal("composer not cleared")
	}
	m, _ = press(m, "up")
	if m.composer.Value() != "first line\nsecond" {
		t.Fatalf("history: %q", m.composer.Value())
	}
	// A message to a focused sub-agent goes to that agent.
	m, _ = press(m, "down")
	m = feed(m, started(child(workerID, "worker", "", "", 1, rootID), time.Second))
	m.focusThread(workerID)
	m = typeText(m, "hi worker")
	m, cmd = press(m, "enter")
	runCmd(cmd)
	if ops := fb.Ops(); ops[len(ops)-1].ThreadID != workerID {
		t.Fatalf("sent to %s", ops[len(ops)-1].ThreadID)
	}
	// Slash command: /note.
	m = typeText(m, "/note  busy  fixing ")
	_, cmd = press(m, "enter")
	runCmd(cmd)
	if op := fb.Ops()[len(fb.Ops())-1]; op.Type != protocol.OpSetNote || op.Note != "busy  fixing" {
		t.Fatalf("note op %+v", op)
	}
}

func TestMouseClickFocusesAgent(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	m = feed(m, treeScenario()...)
	_, ids := m.treeRows(m.treeWidth(), m.bodyHeight())
	row := -1
	for i, id := range ids {
		if id == workerID {
			row = i
		}
	}
	mm, _ := m.Update(tea.MouseClickMsg{X: 3, Y: row + 1, Button: tea.MouseLeft})
	if m = mm.(Model); m.focused != workerID {
		t.Fatalf("click on row %d focused %s", row, m.focused)
	}
}

func TestTreeNavigationAndEsc(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	m = feed(m, treeScenario()...)
	m, _ = press(m, "tab")
	m, _ = press(m, "j")
	m, _ = press(m, "enter")
	if m.focused != explorerID {
		t.Fatalf("focused %s", m.focused)
	}
	if !strings.Contains(screen(m), "(explorer) ✓ completed") {
		t.Fatalf("explorer transcript header:\n%s", screen(m))
	}
	// Esc no longer means "back to the root" (issue 35 item 2): on an idle
	// agent it stays there and stops nothing.
	m, cmd := press(m, "esc")
	runCmd(cmd)
	if m.focused != explorerID {
		t.Fatal("esc moved the focus")
	}
	for _, op := range m.backend.(*fakeBackend).Ops() {
		if op.Type == protocol.OpInterrupt {
			t.Fatalf("esc on an idle agent sent %+v", op)
		}
	}
}

func TestScrollDoesNotJumpWhileStreaming(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	var evs []protocol.Event
	for i := 0; i < 60; i++ {
		evs = append(evs, message(rootID, "line "+itoa(i)))
	}
	m = feed(m, evs...)
	m, _ = press(m, "pgup")
	before := screen(m)
	d := ev(protocol.EventMessageDelta, rootID, 6*time.Second)
	d.Delta = "streaming more text "
	for i := 0; i < 20; i++ {
		m = feed(m, d)
	}
	if after := screen(m); after != before {
		t.Fatalf("view moved while scrolled up:\n%s\n---\n%s", before, after)
	}
	m, _ = press(m, "end")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	t2 := m.sess.threads[rootID]
	t2.follow = true
	if !strings.Contains(screen(m), "streaming more text") {
		t.Fatal("at the bottom the view follows")
	}
}

func TestCtrlCInterruptsThenQuits(t *testing.T) {
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 80, 24, fb)
	m = feed(m, status(rootID, protocol.Running(), time.Second))
	m, cmd := press(m, "ctrl+c")
	runCmd(cmd)
	if ops := fb.Ops(); len(ops) != 1 || ops[0].Type != protocol.OpInterrupt || ops[0].ThreadID != rootID {
		t.Fatalf("first ctrl+c: %+v", ops)
	}
	if !strings.Contains(screen(m), "ctrl+c again") {
		t.Fatal("no quit hint")
	}
	c.t = c.t.Add(500 * time.Millisecond)
	m, cmd = press(m, "ctrl+c")
	if !m.quitting || cmd == nil {
		t.Fatal("second ctrl+c should quit")
	}
	runCmd(cmd)
	if ops := fb.Ops(); ops[len(ops)-1].Type != protocol.OpShutdown {
		t.Fatalf("no shutdown op: %+v", ops)
	}
}

func TestNotifications(t *testing.T) {
	n := newNotifier(NotifyConfig{Condition: "unfocused"})
	env := map[string]string{}
	n.getenv = func(k string) string { return env[k] }
	if n.notify(NotifyTurnComplete, "done") == nil {
		t.Fatal("before any focus report the terminal counts as unfocused")
	}
	n.focused = true
	if n.notify(NotifyTurnComplete, "done") != nil {
		t.Fatal("notified while focused")
	}
	n.focused = false
	if seq := n.sequence("done"); seq != "\x07" {
		t.Fatalf("default terminal should get BEL, got %q", seq)
	}
	env["TERM_PROGRAM"] = "WezTerm"
	if seq := n.sequence("done"); seq != "\x1b]9;done\x07" {
		t.Fatalf("wezterm: %q", seq)
	}
	env["TMUX"] = "/tmp/tmux-0/default,1,0"
	if seq := n.sequence("done"); seq != "\x1bPtmux;\x1b\x1b]9;done\x07\x1b\\" {
		t.Fatalf("tmux passthrough: %q", seq)
	}
	cmd := n.notify(NotifySubAgentComplete, "done")
	if cmd == nil {
		t.Fatal("unfocused should notify")
	}
	if raw, ok := cmd().(tea.RawMsg); !ok || !strings.Contains(raw.Msg.(string), "done") {
		t.Fatalf("not written through the renderer: %#v", cmd())
	}
	n.cfg.Kinds = map[string]bool{NotifySubAgentComplete: true}
	if n.notify(NotifyTurnComplete, "x") != nil || n.notify(NotifySubAgentComplete, "x") == nil {
		t.Fatal("kinds filter")
	}
	n.focused = true
	n.cfg.Condition = "always"
	if n.notify(NotifySubAgentComplete, "x") == nil {
		t.Fatal("always should notify while focused")
	}
	var sent string
	n.cfg.Method = "desktop"
	n.desktop = func(_, msg string) error { sent = msg; return nil }
	n.notify(NotifySubAgentComplete, "desk")()
	if sent != "desk" {
		t.Fatal("desktop method")
	}
	// Through the model: focus events and a final background event.
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 80, 24, fb)
	m.notifier.getenv = func(string) string { return "" }
	mm, _ := m.Update(tea.BlurMsg{})
	m = mm.(Model)
	bg := ev(protocol.EventBackground, rootID, 9*time.Second)
	bg.Background = &protocol.BackgroundEvent{ChildID: workerID, Status: protocol.Completed("ok", true), IsFinal: true, Message: "agent worker (w) [c] completed in 1.0s: ok"}
	cmds := m.applyEvents([]protocol.Event{bg})
	found := false
	for _, c := range cmds {
		if c != nil {
			if _, ok := c().(tea.RawMsg); ok {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("sub-agent completion did not notify when unfocused")
	}
	mm, _ = m.Update(tea.FocusMsg{})
	m = mm.(Model)
	for _, c := range m.applyEvents([]protocol.Event{bg}) {
		if c != nil {
			t.Fatal("notified while focused")
		}
	}
}

func TestHelpAndSlashCompletion(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m, _ = press(m, "?")
	if !m.help || !strings.Contains(screen(m), "ctrl+r") {
		t.Fatal("help overlay")
	}
	m, _ = press(m, "x")
	m = typeText(m, "/res")
	if !strings.Contains(screen(m), "/resume") {
		t.Fatalf("completion popup:\n%s", screen(m))
	}
	m, _ = press(m, "tab")
	if m.composer.Value() != "/resume " {
		t.Fatalf("tab completion: %q", m.composer.Value())
	}
}

func TestPickerFirstPageIsPaged(t *testing.T) {
	home := t.TempDir()
	if err := rollouttest.GenerateIndex(home, 2000); err != nil {
		t.Fatal(err)
	}
	p := newPicker(home, time.Now)
	msg := p.load()().(pickerLoadedMsg)
	if len(msg.entries) != pickerPage || !msg.more {
		t.Fatalf("first page %d more=%v", len(msg.entries), msg.more)
	}
}

// TestTeatestDemoScreen drives the real Bubble Tea program (teatest v2):
// events arrive through the backend's channel, the final screen is golden.
func TestTeatestDemoScreen(t *testing.T) {
	fb := newFake(rootInfo())
	c := &clock{t: t0.Add(30 * time.Second)}
	tm := teatest.NewTestModel(t, NewModel(Options{Backend: fb, Now: c.now}), teatest.WithInitialTermSize(80, 24))
	for _, e := range treeScenario() {
		fb.ch <- e
	}
	// Wait for the last event's own text (its command's output): events
	// reach the model in batches a frame long, so the command's line can
	// be drawn while its end is still in the next batch, which Quit would
	// then overtake.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "0.012s") },
		teatest.WithDuration(testkit.WaitLimit))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(testkit.WaitLimit)).(Model)
	final.r.frame = 0 // spinner frames depend on real ticks
	final.unsub()
	s := screen(final)
	checkSize(t, s, 80, 24)
	goldenScreen(t, s)
}
