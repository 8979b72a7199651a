package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

func pickerWith(t *testing.T, entries []rollout.IndexEntry) *picker {
	p := newPicker(t.TempDir(), func() time.Time { return t0 })
	p.entries, p.more = entries, false
	return p
}

func pressPicker(p *picker, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		if k == "backspace" {
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		} else {
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		p.key(msg)
	}
}

// TestPickerRanksWithinRecency: a better fuzzy match from three weeks ago
// does not jump over today's session.
func TestPickerRanksWithinRecency(t *testing.T) {
	p := pickerWith(t, []rollout.IndexEntry{
		{ID: "a", FirstPrompt: "fix the parser's date handling", UpdatedAt: t0.Add(-2 * time.Hour)},
		{ID: "b", FirstPrompt: "parser", UpdatedAt: t0.Add(-22 * 24 * time.Hour)},
		{ID: "c", FirstPrompt: "unrelated", UpdatedAt: t0.Add(-time.Hour)},
		{ID: "d", FirstPrompt: "parser rewrite, parser tests", UpdatedAt: t0.Add(-23 * 24 * time.Hour)},
	})
	pressPicker(p, "p", "a", "r", "s", "e", "r")
	var got []string
	for _, e := range p.visible() {
		got = append(got, string(e.ID))
	}
	if strings.Join(got, ",") != "a,b,d" && strings.Join(got, ",") != "a,d,b" {
		t.Fatalf("order %v: today's match must come first", got)
	}
	if got[0] != "a" {
		t.Fatalf("order %v", got)
	}
}

func TestPickerBackspaceKeepsWholeCharacters(t *testing.T) {
	p := pickerWith(t, []rollout.IndexEntry{{ID: "a", FirstPrompt: "café", UpdatedAt: t0}})
	pressPicker(p, "c", "a", "f", "é", "backspace")
	if p.filter != "caf" {
		t.Fatalf("filter %q", p.filter)
	}
	pressPicker(p, "日", "backspace", "backspace")
	if p.filter != "ca" {
		t.Fatalf("filter %q", p.filter)
	}
}

func TestOverlayFilterBackspaceAndSort(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	o := newAgentsOverlay()
	o.filtering = true
	for _, k := range []string{"é", "日"} {
		o.key(&m, tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
	}
	o.key(&m, tea.KeyPressMsg{Code: tea.KeyBackspace})
	if o.filter != "é" {
		t.Fatalf("filter %q", o.filter)
	}
	// Elapsed sorts as a duration (10:05 before 9:59), role without indent.
	now := t0.Add(time.Hour)
	mk := func(name string, depth int, ran time.Duration) *threadView {
		tv := newThreadView(protocol.ThreadInfo{AgentType: name, Depth: depth, Source: protocol.SourceSpawned, ParentID: "p", StartedAt: t0})
		tv.setStatus(protocol.Running(), t0)
		tv.setStatus(protocol.Completed("", false), t0.Add(ran))
		return tv
	}
	long, short := mk("zeta", 1, 10*time.Minute+5*time.Second), mk("alpha", 3, 9*time.Minute+59*time.Second)
	if !agentLess(1, long, short, now) || agentLess(1, short, long, now) {
		t.Fatal("elapsed sorted as text")
	}
	if !agentLess(2, short, long, now) {
		t.Fatal("role sort used the indent")
	}
}

func TestResumeOfOpenSessionIsANoop(t *testing.T) {
	home := t.TempDir()
	_ = rollout.AppendIndex(home, rollout.IndexEntry{ID: rootID, Cwd: "/work/project", UpdatedAt: t0, FirstPrompt: "this one"})
	opened := 0
	fb := newFake(rootInfo())
	fb.info.Home = home
	c := &clock{t: t0}
	m := NewModel(Options{Backend: fb, Now: c.now, OpenSession: func(string) (Backend, error) { opened++; return fb, nil }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = mm.(Model)
	m = typeText(m, "/resume")
	m = pressDrive(m, "enter")
	if m.picker == nil {
		t.Fatal("no picker")
	}
	if s := screen(m); !strings.Contains(s, "● open") {
		t.Fatalf("current session not marked:\n%s", s)
	}
	m = pressDrive(m, "enter")
	if opened != 0 || m.picker != nil || !strings.Contains(m.flash, "already open") {
		t.Fatalf("opened %d picker %v flash %q", opened, m.picker != nil, m.flash)
	}
}

func TestResumeByIDAndTabCompletesSessionIDs(t *testing.T) {
	home := t.TempDir()
	other := protocol.ThreadID("01a20000-0000-7000-8000-00000abc1234")
	for _, id := range []protocol.ThreadID{rootID, other, "01a20000-0000-7000-8000-00000abd5678"} {
		_ = rollout.AppendIndex(home, rollout.IndexEntry{ID: id, Cwd: "/work/project", UpdatedAt: t0, FirstPrompt: "p"})
	}
	var opened []string
	fb := newFake(rootInfo())
	fb.info.Home = home
	c := &clock{t: t0}
	m := NewModel(Options{Backend: fb, Now: c.now, OpenSession: func(id string) (Backend, error) { opened = append(opened, id); return newFake(rootInfo()), nil }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = mm.(Model)
	m = typeText(m, "/resume 0abc")
	m = pressDrive(m, "tab")
	if m.composer.Value() != "/resume 0abc1234 " {
		t.Fatalf("composer %q flash %q", m.composer.Value(), m.flash)
	}
	m, cmd := press(m, "enter")
	for _, msg := range collect(cmd) { // the index lookup → resumeFoundMsg
		mm, next := m.Update(msg)
		m = mm.(Model)
		collect(next) // opens it (feeding its backendMsg would start the event pump)
	}
	if len(opened) != 1 || opened[0] != string(other) {
		t.Fatalf("opened %v flash %q", opened, m.flash)
	}
	// The open session by id: a no-op.
	m = typeText(m, "/resume "+string(rootID.Short()))
	m = pressDrive(m, "enter")
	if len(opened) != 1 || !strings.Contains(m.flash, "already open") {
		t.Fatalf("opened %v flash %q", opened, m.flash)
	}
}

// collect runs cmd (and batches) and returns the messages, fed nowhere.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, collect(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}
