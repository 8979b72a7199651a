package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// workerApproval is a request from the worker (not the root).
func workerApproval(id string, at time.Duration, cmd string, sandbox protocol.SandboxMode) protocol.Event {
	e := ev(protocol.EventApprovalRequested, workerID, at)
	e.Approval = &protocol.ApprovalRequest{ID: id, ThreadID: workerID, Kind: protocol.ApprovalExec, Command: cmd, Cwd: "/work/project", Sandbox: sandbox}
	return e
}

// Item 1: the modal belongs to the agent that asks. With the root
// focused, the worker's request is a banner and a tree badge, not a modal
// over the root; tab goes there; clicking the root in the tree shows the
// root again, and ctrl+c then interrupts the root (what is shown), never
// the worker; pgup is not typing.
func TestModalBelongsToItsAgent(t *testing.T) {
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 100, 30, fb)
	m = feed(m, treeScenario()...)
	m = feed(m, workerApproval("a1", 30*time.Second, "make test", ""))
	s := screen(m)
	if strings.Contains(s, "Allow this command?") || !strings.Contains(s, "waits for your approval · tab to answer: make test") || !strings.Contains(s, "⚠ careful") {
		t.Fatalf("the worker's request over the root's pane, or no banner/badge:\n%s", s)
	}
	m, _ = press(m, "tab")
	if m.focused != workerID || !m.modalShown() || !m.appr.focused {
		t.Fatalf("tab did not go to the asking agent: focused %s", m.focused)
	}
	if s := screen(m); !strings.Contains(s, "Allow this command?") || !strings.Contains(s, "to careful (worker)") {
		t.Fatalf("modal not on the worker's pane:\n%s", s)
	}
	m.appr.focused = false
	m, _ = press(m, "pgup")
	if m.appr.typed {
		t.Fatal("pgup counted as typing: the next y would land in the composer")
	}
	c.t = c.t.Add(time.Second)
	_, ids := m.treeRows(m.treeWidth(), m.bodyHeight())
	row := -1
	for i, id := range ids {
		if id == rootID {
			row = i
		}
	}
	mm, _ := m.Update(tea.MouseClickMsg{X: 3, Y: row + 1, Button: tea.MouseLeft})
	m = mm.(Model)
	if m.focused != rootID || m.modalShown() {
		t.Fatalf("click on the root left the pane on the asker (focused %s)", m.focused)
	}
	if s := screen(m); !strings.Contains(s, "to root") || strings.Contains(s, "Allow this command?") {
		t.Fatalf("the composer or the pane still on the worker:\n%s", s)
	}
	m, cmd := press(m, "ctrl+c")
	runCmd(cmd)
	ops := fb.Ops()
	if len(ops) != 1 || ops[0].Type != protocol.OpInterrupt || ops[0].ThreadID != rootID {
		t.Fatalf("ctrl+c acted on what is not shown: %+v", ops)
	}
	checkSize(t, screen(m), 100, 30)
}

// Item 2: esc interrupts the focused agent's turn and nothing else; the
// working line says so; esc in the tree or on an idle agent stops nothing.
func TestEscInterruptsOnlyTheFocusedAgent(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 100, 30, fb)
	m = feed(m, treeScenario()...)
	m = feed(m, workerApproval("a1", 30*time.Second, "make test", ""))
	m.focusThread(explorerID) // idle (completed)
	m, cmd := press(m, "esc")
	runCmd(cmd)
	if len(fb.Ops()) != 0 {
		t.Fatalf("esc on an idle agent sent %+v (the asking worker's turn must not stop)", fb.Ops())
	}
	m.focusThread(rootID) // running
	if s := screen(m); !strings.Contains(s, "esc to interrupt") {
		t.Fatalf("no esc hint next to working…:\n%s", s)
	}
	m.area = focusTree // in the tree esc only leaves it
	m, cmd = press(m, "esc")
	runCmd(cmd)
	if len(fb.Ops()) != 0 || m.area != focusComposer {
		t.Fatalf("esc in the tree: ops %+v area %v", fb.Ops(), m.area)
	}
	m, cmd = press(m, "esc")
	runCmd(cmd)
	if ops := fb.Ops(); len(ops) != 1 || ops[0].Type != protocol.OpInterrupt || ops[0].ThreadID != rootID {
		t.Fatalf("esc did not interrupt the focused root: %+v", ops)
	}
	if len(m.appr.queue) != 1 {
		t.Fatal("esc answered the worker's request")
	}
}

// Item 23: esc twice on an idle agent brings the last message back.
func TestEscEscEditsPreviousMessage(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = feed(m, userMsg(rootID, "fix the parser"), status(rootID, protocol.Completed("done", true), 2*time.Second))
	m, _ = press(m, "esc")
	if !strings.Contains(screen(m), "esc again to edit your previous message") {
		t.Fatalf("no hint:\n%s", screen(m))
	}
	m, _ = press(m, "esc")
	if m.composer.Value() != "fix the parser" {
		t.Fatalf("composer %q", m.composer.Value())
	}
}

// Item 5: a command to run outside the sandbox cannot be approved before
// every row of it was on screen, at every size; the window marker stays
// at the start of the title; pgdn moves a page.
func TestEscalationMustBeReadWhole(t *testing.T) {
	var long strings.Builder
	for i := range 83 {
		fmt.Fprintf(&long, "echo step-%02d && ", i)
	}
	for _, size := range [][2]int{{60, 20}, {40, 12}, {80, 24}, {120, 40}} {
		fb := newFake(rootInfo())
		m, c := newTestModel(t, size[0], size[1], fb)
		e := execApproval("x1", 30*time.Second, long.String()+"true")
		e.Approval.Sandbox = protocol.SandboxDangerFullAccess
		e.Approval.Reason = "writes outside the workspace"
		m = feed(m, e)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		if size[1] < 40 && !strings.Contains(s, "↕1–") {
			t.Fatalf("%v: the more-lines marker is gone:\n%s", size, s)
		}
		if size[1] >= 24 && !strings.Contains(s, "writes outside the workspace") {
			t.Errorf("%v: the agent's reason does not show:\n%s", size, s)
		}
		m, _ = press(m, "tab")
		c.t = c.t.Add(time.Second)
		m, _ = press(m, "y")
		if !strings.Contains(s, "↕1–") {
			// It all fits (120x40): read at once, y asks the confirmation.
			if !m.appr.confirming() {
				t.Fatalf("%v: a command all on screen was not taken", size)
			}
			m, _ = press(m, "esc")
			m, _ = press(m, "tab")
			m, _ = press(m, "tab")
		} else if m.appr.confirming() {
			t.Fatalf("%v: y approved a command not read to its end", size)
		}
		if s := screen(m); strings.Contains(s, "↕1–") && !strings.Contains(s, "read the whole command first") && size[1] >= 20 {
			t.Fatalf("%v: no word on why:\n%s", size, s)
		}
		before := m.appr.scroll
		m, _ = press(m, "pgdown")
		if step := m.appr.scroll - before; step < 2 && size[1] >= 20 && size[1] < 40 {
			t.Errorf("%v: pgdn moved %d rows, not a page", size, step)
		}
		for range 200 {
			if m.appr.unseen() == 0 {
				break
			}
			m, _ = press(m, "pgdown")
		}
		m, _ = press(m, "y")
		if !m.appr.confirming() {
			t.Fatalf("%v: the whole command was read, y should ask the red confirmation", size)
		}
		c.t = c.t.Add(time.Second)
		m, cmd := press(m, "enter")
		runCmd(cmd)
		if ops := fb.Ops(); len(ops) != 1 || ops[0].Decision != protocol.DecisionApproved {
			t.Fatalf("%v: ops %+v", size, ops)
		}
		if s := screen(m); !strings.Contains(s, "✔ You approved") {
			t.Errorf("%v: no trace of the approval:\n%s", size, s)
		}
	}
}

// Item 6: the focused agent's context gauge, labelled, with a warning near
// the auto-compaction point.
func TestContextGauge(t *testing.T) {
	fb := newFake(rootInfo())
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: fb, Now: c.now, ContextLimits: func(string) (int64, int64) { return 200_000, 180_000 }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	m = mm.(Model)
	u := ev(protocol.EventTokenUsage, rootID, time.Second)
	u.Usage = &protocol.TokenUsage{InputTokens: 50_000, OutputTokens: 1_000, TotalTokens: 51_000}
	u.TotalUsage = u.Usage
	m = feed(m, u)
	look := m.wantLimits([]protocol.Event{u}) // asked once, when the limits arrive
	if len(look) != 0 {
		t.Fatal("the limits are asked again")
	}
	mm, _ = m.Update(contextLimitsMsg{model: "gpt-test", limits: contextLimits{window: 200_000, compactAt: 180_000}})
	m = mm.(Model)
	if s := screen(m); !strings.Contains(s, "79% context left") || !strings.Contains(s, "root 51.0k · all 51.0k tok") {
		t.Fatalf("no labelled gauge:\n%s", s)
	}
	u.Usage = &protocol.TokenUsage{InputTokens: 150_000, OutputTokens: 1_000, TotalTokens: 151_000}
	m = feed(m, u)
	if s := screen(m); !strings.Contains(s, "context left · auto-compacts at 180.0k tokens") {
		t.Fatalf("no warning before auto-compaction:\n%s", s)
	}
	if got := percentLeft(12_000, 200_000); got != 100 {
		t.Fatalf("baseline: %d", got)
	}
}

// Item 7: sixteen agents of one role show their sixteen names in the tree,
// the composer and the modal's "asked by".
func TestSixteenWorkersHaveUniqueNames(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	seen := map[string]bool{}
	var ids []protocol.ThreadID
	for i := 1; i <= 16; i++ {
		id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", 100+i))
		ids = append(ids, id)
		info := child(id, "worker", "", "", 1, rootID)
		info.Nickname = fmt.Sprintf("Worker%02d", i) // the engine's (nickname_test.go checks they differ)
		m = feed(m, started(info, time.Second))
		n := nick(m, id)
		if seen[n] || n == "" {
			t.Fatalf("name %q given twice", n)
		}
		seen[n] = true
	}
	e := ev(protocol.EventApprovalRequested, ids[7], 2*time.Second)
	e.Approval = &protocol.ApprovalRequest{ID: "q", ThreadID: ids[7], Kind: protocol.ApprovalExec, Command: "ls"}
	m = feed(m, e)
	m.focusThread(ids[7])
	s := screen(m)
	n := nick(m, ids[7])
	for _, want := range []string{"asked by: " + n + " (worker) · root → " + n, "to " + n + " (worker)", "⚠ " + n} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// Item 11: "don't ask again this session" answers the identical request a
// sibling queued meanwhile.
func TestSessionApprovalCoversQueuedTwin(t *testing.T) {
	fb := newFake(rootInfo())
	m, c := newTestModel(t, 100, 30, fb)
	m = feed(m, execApproval("a1", 30*time.Second, "go test ./..."), execApproval("a2", 30*time.Second, "go test ./..."), execApproval("a3", 30*time.Second, "rm -rf x"))
	m, _ = press(m, "tab")
	c.t = c.t.Add(time.Second)
	m, _ = press(m, "a")
	c.t = c.t.Add(time.Second)
	m, cmd := press(m, "enter")
	runCmd(cmd)
	ops := fb.Ops()
	if len(ops) != 2 || ops[0].ApprovalID != "a1" || ops[1].ApprovalID != "a2" || ops[1].Decision != protocol.DecisionApprovedForSession {
		t.Fatalf("ops %+v", ops)
	}
	if len(m.appr.queue) != 1 || m.appr.current().ID != "a3" {
		t.Fatalf("queue %+v", m.appr.queue)
	}
}

// Items 8, 9, 18, 20: sending while scrolled up follows the answer; a
// command killed by the interrupt is "‖ interrupted", not "✗ exit 137";
// /compact's flash ends with the compaction; /model refuses an unknown
// reasoning effort.
func TestMinorItems(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 100, 30, fb)
	var evs []protocol.Event
	for i := range 60 {
		evs = append(evs, message(rootID, "line "+itoa(i)))
	}
	m = feed(m, evs...)
	m, _ = press(m, "pgup")
	if m.sess.threads[rootID].follow {
		t.Fatal("pgup did not scroll up")
	}
	m = typeText(m, "next")
	m, _ = press(m, "enter")
	if !m.sess.threads[rootID].follow {
		t.Fatal("sending while scrolled up did not jump to the answer (item 8)")
	}

	m = feed(m, userMsg(rootID, "run it"), status(rootID, protocol.Running(), 5*time.Second), toolBegin(rootID, "k", "exec_command", `{"cmd":"sleep 100"}`))
	end := toolEnd(rootID, "k", "exec_command", `{"cmd":"sleep 100"}`, "")
	code := 137
	end.Tool.ExitCode = &code
	m = feed(m, end, status(rootID, protocol.Interrupted(), 6*time.Second))
	if s := screen(m); strings.Contains(s, "exit 137") || !strings.Contains(s, "‖ exec_command interrupted") {
		t.Fatalf("item 9:\n%s", s)
	}

	m = typeText(m, "/compact")
	m, _ = press(m, "enter")
	if !strings.HasPrefix(m.flash, "compacting") {
		t.Fatalf("flash %q", m.flash)
	}
	done := ev(protocol.EventContextCompacted, rootID, 7*time.Second)
	done.Compaction = &protocol.Compaction{Trigger: protocol.CompactManual, TokensBefore: 4800, TokensAfter: 620}
	m = feed(m, done)
	if strings.Contains(screen(m), "compacting the conversation") {
		t.Fatal("the compaction flash stayed after it ended (item 18)")
	}

	m = typeText(m, "/model gpt-test ludicrous")
	m, cmd := press(m, "enter")
	runCmd(cmd)
	if !strings.Contains(m.flash, `effort: unknown value "ludicrous"`) {
		t.Fatalf("item 20: flash %q", m.flash)
	}
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpSetModel {
			t.Fatalf("an unknown effort was sent: %+v", op)
		}
	}
}

// Item 4: a session another grove writes is marked "open in pid N" in the
// picker, the preview names the command and how to fork; opened, it shows
// a read-only banner whole at any width, and a refused message's reason
// is kept whole in the transcript.
func TestSessionHeldElsewhere(t *testing.T) {
	savedGone, savedHolder := dirGone, sessionHolder
	dirGone = func(string) bool { return false }
	sessionHolder = func(path string) (int, string) {
		if strings.Contains(path, "held") {
			return 4242, "grove -m gpt-5 fix the parser"
		}
		return 0, ""
	}
	defer func() { dirGone, sessionHolder = savedGone, savedHolder }()
	home := t.TempDir()
	id := protocol.ThreadID("00000001-0000-7000-8000-000000000001")
	_ = rollout.AppendIndex(home, rollout.IndexEntry{ID: id, Cwd: "/work/project", UpdatedAt: t0, FirstPrompt: "refactor", RolloutPath: home + "/held.jsonl"})
	c := &clock{t: t0}
	m := NewModel(Options{StartInPicker: true, Home: home, Now: c.now})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m = mm.(Model)
	mm, _ = m.Update(m.picker.load()())
	m = mm.(Model)
	if s := screen(m); !strings.Contains(s, "open in pid 4242") {
		t.Fatalf("picker row:\n%s", s)
	}
	if meta := m.picker.previewMeta(m.picker.entries[0]); !strings.Contains(meta, "open in pid 4242 (grove -m gpt-5 fix the parser): opens read-only; grove resume --fork") {
		t.Fatalf("preview meta %q", meta)
	}

	fb := newFake(rootInfo())
	fb.info.ReadOnly = "read-only view: session rollout /home/u/.grove/sessions/x.jsonl is open for writing by process 4242 (grove): one grove at a time may continue a session; close that one, or fork this session into a new one with --fork. Input is refused while that grove runs; `grove resume --fork 0001` continues a copy"
	for _, w := range []int{40, 80, 120} {
		m, _ := newTestModel(t, w, 24, fb)
		s := screen(m)
		checkSize(t, s, w, 24)
		flat := strings.Join(strings.Fields(strings.ReplaceAll(ansiStrip(s), "│", " ")), " ")
		if !strings.Contains(s, "read-only: input is refused") || (w >= 80 && !strings.Contains(flat, "continues a copy")) {
			t.Fatalf("%d: read-only banner cut:\n%s", w, s)
		}
		mm, _ := m.Update(sendFailedMsg{thread: rootID, text: "hi", err: fmt.Errorf("%s", fb.info.ReadOnly)})
		m = mm.(Model)
		if w >= 80 && !strings.Contains(strings.Join(strings.Fields(ansiStrip(screen(m))), " "), "not sent: read-only view") {
			t.Fatalf("%d: refusal not in the transcript:\n%s", w, screen(m))
		}
	}
}

// Item 22: at 80 columns the help wraps its long rows instead of cutting
// them.
func TestHelpWrapsAt80(t *testing.T) {
	m, _ := newTestModel(t, 80, 60, newFake(rootInfo()))
	m, _ = press(m, "?")
	flat := strings.Join(strings.Fields(m.render()), " ")
	for _, b := range keys.FullHelp()[0] {
		if d := strings.Join(strings.Fields(b.Help().Desc), " "); !strings.Contains(flat, d) {
			t.Errorf("help lost %q", d)
		}
	}
}

// Item 21: a 200-line paste sent is a dozen rows and a count in the
// transcript, not 200 rows.
func TestLongMessageIsCollapsed(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "pasted %d\n", i)
	}
	m = feed(m, userMsg(rootID, strings.TrimSpace(b.String())))
	s := screen(m)
	if !strings.Contains(s, "… 188 more lines sent") || strings.Contains(s, "pasted 200") {
		t.Fatalf("the paste is not collapsed:\n%s", s)
	}
}
