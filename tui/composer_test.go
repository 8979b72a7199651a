package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

func userTurns(fb *fakeBackend) []string {
	var out []string
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpUserTurn {
			out = append(out, op.Text)
		}
	}
	return out
}

func sendNow(t *testing.T, m Model) Model {
	t.Helper()
	m, cmd := press(m, "enter")
	runCmd(cmd)
	return m
}

func typeLines(m Model, lines []string) Model {
	for i, l := range lines {
		if i > 0 {
			m, _ = press(m, "ctrl+j")
		}
		m = typeText(m, l)
	}
	return m
}

func numbered(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("line%d", i))
	}
	return out
}

// composerRows is the screen's composer (between the rule and the status line).
func composerRows(s string) []string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 2; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "── to ") || strings.HasPrefix(lines[i], " /") {
			return lines[i+1 : len(lines)-1]
		}
	}
	return nil
}

func TestComposerShowsEveryLineAndSendsThem(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 80, 24, fb)
	m = typeLines(m, []string{"line1", "line2"})
	if rows := composerRows(screen(m)); len(rows) != 2 || !strings.Contains(rows[0], "› line1") || strings.TrimSpace(rows[1]) != "line2" {
		t.Fatalf("after ctrl+j the composer shows %q", rows)
	}
	// Past six lines nothing is dropped, and what is sent keeps every newline.
	m = typeLines(sendNow(t, m), numbered(9))
	if got := m.composer.Value(); got != strings.Join(numbered(9), "\n") {
		t.Fatalf("composer holds %q", got)
	}
	sendNow(t, m)
	turns := userTurns(fb)
	if len(turns) != 2 || turns[0] != "line1\nline2" || turns[1] != strings.Join(numbered(9), "\n") {
		t.Fatalf("sent %q", turns)
	}
}

func TestComposerGrowsThenScrollsWithCursor(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = typeLines(m, numbered(30))
	rows := composerRows(screen(m))
	if len(rows) != composerMaxRows(24) {
		t.Fatalf("composer is %d rows, want the maximum %d: %q", len(rows), composerMaxRows(24), rows)
	}
	if last := strings.TrimSpace(rows[len(rows)-1]); last != "line30" {
		t.Fatalf("cursor row not visible: last row %q", last)
	}
	// Moving the cursor up scrolls back to the first line.
	for range 29 {
		m, _ = press(m, "up")
	}
	if rows := composerRows(screen(m)); !strings.Contains(rows[0], "line1") {
		t.Fatalf("first line not shown with the cursor on it: %q", rows)
	}
}

func TestComposerWrapsALongLine(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	long := strings.Repeat("word ", 40) + "END"
	m = typeText(m, long)
	rows := composerRows(screen(m))
	if len(rows) < 3 || !strings.Contains(rows[0], "› word") || !strings.Contains(rows[len(rows)-1], "END") {
		t.Fatalf("long line rows %q", rows)
	}
}

func TestComposerPasteChip(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 80, 24, fb)
	big := strings.Join(numbered(30), "\n") + "\n"
	m = typeText(m, "see this: ")
	mm, _ := m.Update(tea.PasteMsg{Content: big})
	m = mm.(Model)
	m = typeText(m, " thanks")
	rows := composerRows(screen(m))
	if len(rows) != 1 || !strings.Contains(rows[0], "see this: [pasted 30 lines #1] thanks") {
		t.Fatalf("paste chip rows %q", rows)
	}
	// A small paste goes in as it is, every line shown.
	mm, _ = m.Update(tea.PasteMsg{Content: "\na\r\nb"})
	m = mm.(Model)
	if rows := composerRows(screen(m)); len(rows) != 3 || strings.TrimSpace(rows[2]) != "b" {
		t.Fatalf("small paste rows %q", rows)
	}
	sendNow(t, m)
	want := "see this: " + big + " thanks\na\nb"
	if turns := userTurns(fb); len(turns) != 1 || turns[0] != want {
		t.Fatalf("sent %q\nwant %q", turns, want)
	}
}

func TestGoldenComposer(t *testing.T) {
	for _, n := range []int{1, 6, 30} {
		m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
		m = feed(m, treeScenario()...)
		m = typeLines(m, numbered(n))
		s := screen(m)
		checkSize(t, s, 80, 24)
		golden(t, fmt.Sprintf("%d_lines", n), s)
	}
}

// TestQueuedMessageShowsAtOnce: a message to a busy agent shows at once,
// dimmed as queued, and becomes a normal message when the agent takes it.
func TestQueuedMessageShowsAtOnce(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 80, 24, fb)
	m = feed(m, status(rootID, protocol.Running(), time.Second))
	m = typeText(m, "also check the docs")
	m = sendNow(t, m)
	s := screen(m)
	if !strings.Contains(s, "› also check the docs") || !strings.Contains(s, "queued") {
		t.Fatalf("queued message not shown:\n%s", s)
	}
	m = feed(m, userMsg(rootID, "also check the docs"))
	s = screen(m)
	if strings.Contains(s, "queued") || strings.Count(s, "also check the docs") != 1 {
		t.Fatalf("after delivery:\n%s", s)
	}
}

type failingBackend struct{ *fakeBackend }

func (failingBackend) Submit(protocol.Op) error { return errors.New("engine stopped") }
func (failingBackend) Turn(app.Turn) error      { return errors.New("engine stopped") }

func TestFailedSendLeavesNoQueuedGhost(t *testing.T) {
	fb := failingBackend{newFake(rootInfo())}
	c := &clock{t: t0}
	mm, _ := NewModel(Options{Backend: fb, Now: c.now}).Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m := typeText(mm.(Model), "hello")
	m = pressDrive(m, "enter")
	if s := screen(m); strings.Contains(s, "queued") || !strings.Contains(s, "not sent: engine stopped") {
		t.Fatalf("after a failed send:\n%s", s)
	}
}

func TestExitCarriesLastAnswerAndResume(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = feed(m, message(rootID, "first answer"), message(explorerID, "not root"), message(rootID, "## Done\nAll tests pass."))
	var b strings.Builder
	if err := m.exit().Print(&b); err != nil {
		t.Fatal(err)
	}
	want := "## Done\nAll tests pass.\n\nResume this session with: grove resume " + string(rootID) + "\n"
	if b.String() != want {
		t.Fatalf("exit text %q, want %q", b.String(), want)
	}
	// Nothing open (quit from the picker): nothing printed.
	b.Reset()
	_ = NewModel(Options{StartInPicker: true, Home: t.TempDir()}).exit().Print(&b)
	if b.String() != "" {
		t.Fatalf("printed %q", b.String())
	}
}
