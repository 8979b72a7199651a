package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// deliver sends events the way the engine does — through the backend's
// subscription and the batch reader — rather than straight to Update.
func deliver(t *testing.T, m Model, fb *fakeBackend, evs ...protocol.Event) Model {
	t.Helper()
	for _, e := range evs {
		fb.ch <- e
	}
	msg := waitEvents(m.events)().(eventsMsg)
	for len(msg.events) < len(evs) {
		more := waitEvents(m.events)().(eventsMsg)
		msg.events = append(msg.events, more.events...)
	}
	mm, _ := m.Update(msg)
	return mm.(Model)
}

// hostile are sequences a terminal acts on; none may reach it.
var hostile = []string{"\x1b[8m", "\x1b]52;", "\x1b]8;", "\r", "\u202e", "\x9b", "\u009b", "\x07"}

func assertNoHostile(t *testing.T, raw string) {
	t.Helper()
	for _, h := range hostile {
		if strings.Contains(raw, h) {
			t.Errorf("the terminal receives %q", h)
		}
	}
}

// Issue 31 item 5: an escalation whose command hides its second half in
// ESC[8m (conceal) showed as `$ git status`; y+Enter ran the rest outside
// the sandbox. The modal shows every byte.
func TestApprovalShowsHiddenCommand(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 120, 30, fb)
	cmd := "git status \x1b[8m; touch /home/u/PWNED #\x1b[0m"
	m = deliver(t, m, fb, execApproval("ap1", time.Second, cmd))
	raw := m.render()
	assertNoHostile(t, raw)
	if !strings.Contains(screen(m), `$ git status \x1b[8m; touch /home/u/PWNED #\x1b[0m`) {
		t.Fatalf("the hidden part is not shown:\n%s", screen(m))
	}
}

// The same through every other field a modal or card draws: a patch's
// file names and lines (bidi override), a working-directory request (CR
// + erase line), the reason; and a request already pending when the TUI
// attaches (the snapshot path).
func TestApprovalFieldsAreVisible(t *testing.T) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, 120, 40, fb)
	p := ev(protocol.EventApprovalRequested, rootID, time.Second)
	p.Approval = &protocol.ApprovalRequest{ID: "p1", ThreadID: rootID, Kind: protocol.ApprovalPatch,
		Files: []string{"src/safe\u202egnp.sh"}, Patch: "+echo ok\x1b]52;c;Y3VybCBldmlsfHNo\x07\n", Reason: "tidy\r\x1b[Kharmless"}
	d := ev(protocol.EventApprovalRequested, rootID, 2*time.Second)
	d.Approval = &protocol.ApprovalRequest{ID: "d1", ThreadID: rootID, Kind: protocol.ApprovalWorkingDir, Dir: "/home/u\r\x1b[K/work/project"}
	m = deliver(t, m, fb, p, d)
	assertNoHostile(t, m.render())
	s := screen(m)
	for _, want := range []string{`src/safe\u202egnp.sh`, `+echo ok\x1b]52;c;Y3VybCBldmlsfHNo\x07`, `tidy\r\x1b[Kharmless`} {
		if !strings.Contains(s, want) {
			t.Errorf("%q not shown:\n%s", want, s)
		}
	}

	pending := &pendingFake{fakeBackend: newFake(rootInfo()), pending: []protocol.ApprovalRequest{*d.Approval}}
	m2 := NewModel(Options{Backend: pending, Now: func() time.Time { return t0 }})
	mm, _ := m2.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	raw := mm.(Model).render()
	assertNoHostile(t, raw)
	if !strings.Contains(screen(mm.(Model)), `/home/u\r\x1b[K/work/project`) {
		t.Errorf("pending request not shown whole:\n%s", screen(mm.(Model)))
	}
}

type pendingFake struct {
	*fakeBackend
	pending []protocol.ApprovalRequest
}

func (p *pendingFake) PendingApprovals() []protocol.ApprovalRequest { return p.pending }

// Issue 31 item 11: a model-set note and a command's output carrying OSC
// 52 (a clipboard write) and a hyperlink reach the tree, the transcript
// and the status line as text.
func TestNotesAndOutputNeverReachTheTerminalRaw(t *testing.T) {
	info := rootInfo()
	info.Note = "fine\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
	fb := newFake(info)
	m, _ := newTestModel(t, 120, 30, fb)
	note := "build \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07ok"
	n := ev(protocol.EventNoteUpdated, rootID, time.Second)
	n.Note = &note
	call := ev(protocol.EventToolCallEnd, rootID, 2*time.Second)
	code := 0
	call.Tool = &protocol.ToolCall{CallID: "c1", Name: "exec_command", Arguments: `{"cmd":"cat x\u001b[8m; rm -rf ~"}`,
		Output: "Exit code: 0\nOutput:\n\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\ \x1b]52;c;Y3VybA==\x07done\rover", ExitCode: &code}
	m = deliver(t, m, fb, n, call)
	assertNoHostile(t, m.render())
	if s := screen(m); !strings.Contains(s, `build \x1b]52;c;Y3Vy`) || !strings.Contains(s, `cat x\x1b[8m; rm -rf ~`) {
		t.Errorf("note or command not shown as text:\n%s", s)
	}
}
