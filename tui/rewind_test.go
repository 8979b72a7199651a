package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/grovecli/grove/protocol"
)

// TestEscEscRewindsToAForkWithTheMessageInTheComposer: issue 35 item 23 as
// Codex's backtrack does it (codex-rs/tui/src/app_backtrack.rs: esc-esc
// selects the last user message, esc again an older one, enter forks the
// conversation before it with the message prefilled). The TUI asks for the
// fork cut two messages back, switches to it and puts "second" in the
// composer; the source's transcript is not what shows any more.
func TestEscEscRewindsToAForkWithTheMessageInTheComposer(t *testing.T) {
	const forkID protocol.ThreadID = "00000000-0000-7000-8000-0000000fork1"
	src := newFake(rootInfo())
	fork := newFake(protocol.ThreadInfo{ID: forkID, Source: protocol.SourceRoot, Model: "gpt-test", Cwd: "/work/project", StartedAt: t0, Status: protocol.Completed("first answer", true)})
	fork.history = map[protocol.ThreadID][]protocol.Item{forkID: {protocol.UserMessage("first"), {Type: protocol.ItemMessage, Role: protocol.RoleAssistant, Content: "first answer"}}}
	var asked []string
	var turns []int
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: src, Now: c.now, Rewind: func(id string, n int) (Backend, string, error) {
		asked, turns = append(asked, id), append(turns, n)
		return fork, "second", nil
	}})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = mm.(Model)
	m = feed(m, userMsg(rootID, "first"), message(rootID, "first answer"),
		userMsg(rootID, "second"), message(rootID, "second answer"),
		userMsg(rootID, "third"), message(rootID, "third answer"),
		status(rootID, protocol.Completed("third answer", true), 2*time.Second))
	m, _ = press(m, "esc")
	if s := screen(m); !strings.Contains(s, "esc again to rewind to your previous message") {
		t.Fatalf("no hint:\n%s", s)
	}
	m, _ = press(m, "esc")
	if s := screen(m); !strings.Contains(s, `rewind to before "third"`) || !strings.Contains(s, "enter forks here") {
		t.Fatalf("the last message is not selected:\n%s", s)
	}
	if !highlighted(m, "› third") || highlighted(m, "› second") {
		t.Fatalf("the transcript does not mark the selected message:\n%s", m.render())
	}
	m, _ = press(m, "esc")
	if s := screen(m); !strings.Contains(s, `rewind to before "second"`) {
		t.Fatalf("esc did not step back:\n%s", s)
	}
	if !highlighted(m, "› second") || highlighted(m, "› third") {
		t.Fatalf("the highlight did not move back:\n%s", m.render())
	}
	if m.composer.Value() != "" || len(asked) != 0 {
		t.Fatalf("selecting changed something: composer %q, forks %v", m.composer.Value(), asked)
	}
	m, cmd := press(m, "enter")
	if cmd == nil {
		t.Fatal("enter did not fork")
	}
	mm, _ = m.Update(cmd())
	m = mm.(Model)
	if len(asked) != 1 || asked[0] != string(rootID) || turns[0] != 2 {
		t.Fatalf("rewind asked %v %v, want the root two messages back", asked, turns)
	}
	if m.sess.root != forkID || m.composer.Value() != "second" {
		t.Fatalf("root %s composer %q, want the fork with %q", m.sess.root, m.composer.Value(), "second")
	}
	s := screen(m)
	if !strings.Contains(s, "first answer") || strings.Contains(s, "third answer") || !strings.Contains(s, "rewound") {
		t.Fatalf("the fork is not on screen:\n%s", s)
	}
	if len(src.Ops()) != 0 {
		t.Fatalf("the source session got %+v", src.Ops())
	}
}

// TestRewindCancelsOnOtherKeys: esc on the first message stays on it; a
// key other than esc or enter drops the selection and does what it always
// does (here: types).
func TestRewindCancelsOnOtherKeys(t *testing.T) {
	fb := newFake(rootInfo())
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: fb, Now: c.now, Rewind: func(string, int) (Backend, string, error) {
		t.Fatal("forked")
		return nil, "", nil
	}})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = mm.(Model)
	m = feed(m, userMsg(rootID, "first"), status(rootID, protocol.Completed("done", true), 2*time.Second))
	m, _ = press(m, "esc")
	m, _ = press(m, "esc")
	if m.rewind != 1 {
		t.Fatalf("rewind %d after esc esc", m.rewind)
	}
	m, _ = press(m, "esc") // the first message: nothing older
	if m.rewind != 1 || !strings.Contains(m.flash, "(your first)") {
		t.Fatalf("rewind %d flash %q", m.rewind, m.flash)
	}
	if !highlighted(m, "› first") {
		t.Fatalf("the first message is not marked:\n%s", m.render())
	}
	m = typeText(m, "x")
	if m.rewind != 0 || m.composer.Value() != "x" {
		t.Fatalf("typing: rewind %d composer %q", m.rewind, m.composer.Value())
	}
	if highlighted(m, "› first") {
		t.Fatal("the mark stays after the rewind was cancelled")
	}
}

// highlighted reports whether the screen row showing sub has the selection
// highlight (the theme's tableSel background), as a person sees it.
func highlighted(m Model, sub string) bool {
	on, _, _ := strings.Cut(m.th.tableSel.Render("X"), "X")
	for _, row := range strings.Split(m.render(), "\n") {
		if strings.Contains(ansi.Strip(row), sub) {
			return on != "" && strings.Contains(row, on)
		}
	}
	return false
}

// TestRewindScrollsTheMessageIntoView: stepping back past the top of the
// window scrolls the selected message into view, highlighted.
func TestRewindScrollsTheMessageIntoView(t *testing.T) {
	c := &clock{t: t0.Add(30 * time.Second)}
	m := NewModel(Options{Backend: newFake(rootInfo()), Now: c.now, Rewind: func(string, int) (Backend, string, error) {
		t.Fatal("forked")
		return nil, "", nil
	}})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = mm.(Model)
	for i := range 12 {
		m = feed(m, userMsg(rootID, fmt.Sprintf("question %02d", i)), message(rootID, strings.Repeat(fmt.Sprintf("answer %02d. ", i), 30)))
	}
	m = feed(m, status(rootID, protocol.Completed("done", true), 2*time.Second))
	if strings.Contains(screen(m), "question 03") {
		t.Fatalf("the test needs question 03 off screen:\n%s", screen(m))
	}
	m, _ = press(m, "esc")
	m, _ = press(m, "esc")
	for range 8 { // question 11 → question 03
		m, _ = press(m, "esc")
	}
	s := screen(m)
	if !strings.Contains(s, `rewind to before "question 03"`) || !highlighted(m, "› question 03") {
		t.Fatalf("question 03 is not shown selected:\n%s", s)
	}
}
