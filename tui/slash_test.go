package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// drive runs cmd and feeds the messages it produces back into the model
// (as the program would), until nothing is left.
func drive(m Model, cmd tea.Cmd) Model {
	if cmd == nil {
		return m
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return m
	case tea.BatchMsg:
		for _, c := range msg {
			m = drive(m, c)
		}
		return m
	}
	mm, next := m.Update(msg)
	return drive(mm.(Model), next)
}

func pressDrive(m Model, k string) Model {
	m, cmd := press(m, k)
	return drive(m, cmd)
}

func modelOps(fb *fakeBackend) []protocol.Op {
	var out []protocol.Op
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpSetModel {
			out = append(out, op)
		}
	}
	return out
}

func newModelsModel(t *testing.T, names []string) (Model, *fakeBackend, *int) {
	fb := newFake(rootInfo())
	calls := 0
	c := &clock{t: t0}
	opts := Options{Backend: fb, Now: c.now}
	if names != nil {
		opts.Models = func() []string { calls++; return names }
	}
	mm, _ := NewModel(opts).Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return mm.(Model), fb, &calls
}

func TestTabCompletesSlashArguments(t *testing.T) {
	m, _, calls := newModelsModel(t, []string{"gpt-5", "gpt-5-mini", "o3"})
	m = typeText(m, "/mo")
	m = pressDrive(m, "tab")
	if m.composer.Value() != "/model " {
		t.Fatalf("command completion %q", m.composer.Value())
	}
	m = typeText(m, "gp")
	m = pressDrive(m, "tab")
	if m.area != focusComposer || m.composer.Value() != "/model gpt-5" {
		t.Fatalf("area %v composer %q", m.area, m.composer.Value())
	}
	if m.flash != "gpt-5  gpt-5-mini" {
		t.Fatalf("candidates not listed: %q", m.flash)
	}
	// The next keys still reach the composer; the list is not fetched again.
	m = typeText(m, "-m")
	m = pressDrive(m, "tab")
	if m.composer.Value() != "/model gpt-5-mini " || *calls != 1 {
		t.Fatalf("composer %q, %d fetches", m.composer.Value(), *calls)
	}
}

func TestModelCommandValidates(t *testing.T) {
	m, fb, _ := newModelsModel(t, []string{"gpt-5", "gpt-5-mini"})
	m = typeText(m, "/model gpt5-mini")
	m = pressDrive(m, "enter")
	if len(modelOps(fb)) != 0 || m.info.Model == "gpt5-mini" {
		t.Fatalf("unknown model accepted: %+v", modelOps(fb))
	}
	if m.flash != `unknown model "gpt5-mini" · /model lists the provider's models` {
		t.Fatalf("flash %q", m.flash)
	}
	m = typeText(m, "/model mini")
	m = pressDrive(m, "enter")
	if m.flash != `unknown model "mini" · did you mean gpt-5-mini` {
		t.Fatalf("flash %q", m.flash)
	}
	m = typeText(m, "/model gpt-5-mini high")
	m = pressDrive(m, "enter")
	ops := modelOps(fb)
	if len(ops) != 1 || ops[0].Model != "gpt-5-mini" || ops[0].ReasoningEffort != "high" || m.info.Model != "gpt-5-mini" {
		t.Fatalf("ops %+v info %q", ops, m.info.Model)
	}
	// No list to check against: set, with a warning.
	m2, fb2, _ := newModelsModel(t, nil)
	m2 = typeText(m2, "/model anything")
	m2 = pressDrive(m2, "enter")
	if ops := modelOps(fb2); len(ops) != 1 || m2.flash != "model set to anything (the provider lists no models: not checked)" {
		t.Fatalf("ops %+v flash %q", ops, m2.flash)
	}
}

func TestSlashMenuIsVerticalWithDescriptions(t *testing.T) {
	m, _, _ := newModelsModel(t, nil)
	m = typeText(m, "/")
	s := screen(m)
	for _, c := range slashCommands {
		if !strings.Contains(s, c.name) || !strings.Contains(s, c.help) {
			t.Fatalf("menu lacks %s:\n%s", c.name, s)
		}
	}
	rows := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "/") {
			rows++
		}
	}
	if rows != len(slashCommands) {
		t.Fatalf("%d menu rows, want one per command:\n%s", rows, s)
	}
	checkSize(t, s, 80, 24)
	// Filtering as you type; enter on a command that needs an argument
	// completes it, on one that does not runs it.
	m = typeText(m, "mo")
	if s := screen(m); strings.Contains(s, "/resume") || !strings.Contains(s, "/model") {
		t.Fatalf("filter:\n%s", s)
	}
	m = pressDrive(m, "enter")
	if m.composer.Value() != "/model " {
		t.Fatalf("composer %q", m.composer.Value())
	}
	m.composer.SetValue("")
	m = typeText(m, "/")
	m = pressDrive(m, "down")
	m = pressDrive(m, "down") // /agents
	m = pressDrive(m, "enter")
	if m.overlay == nil || m.composer.Value() != "" {
		t.Fatalf("enter on /agents: overlay %v composer %q", m.overlay != nil, m.composer.Value())
	}
}
