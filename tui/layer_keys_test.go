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

// TestHelpListsEveryLayer: the ? screen has a section per layer, each
// row showing the keys its binding matches.
func TestHelpListsEveryLayer(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	help := ansiStrip(strings.Join(m.helpLines(), "\n"))
	for _, sec := range helpSections() {
		if !strings.Contains(help, sec.title) {
			t.Errorf("help lacks the section %q", sec.title)
		}
		for _, b := range sec.keys {
			if b.Help().Desc == "" || !strings.Contains(help, b.Help().Desc) {
				t.Errorf("%s: help lacks %q (%v)", sec.title, b.Help().Desc, b.Keys())
			}
		}
	}
}

// TestLayerCloseKeysClose: every key of a layer's close binding closes
// that layer (the handlers match the bindings help shows).
func TestLayerCloseKeysClose(t *testing.T) {
	for _, k := range agentsKeys.Close.Keys() {
		m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
		m, _ = press(m, "ctrl+t")
		if m.topLayer() != layerAgents {
			t.Fatal("ctrl+t did not open the agents table")
		}
		mm, _ := m.Update(keyMsg(k))
		if got := mm.(Model); got.topLayer() != layerMain {
			t.Errorf("%s left the agents table open", k)
		}
	}
	for _, k := range helpKeys.Down.Keys() {
		m, _ := newTestModel(t, 100, 10, newFake(rootInfo()))
		m.help = true
		mm, _ := m.Update(keyMsg(k))
		if got := mm.(Model); !got.help || got.helpTop != 1 {
			t.Errorf("%s on the help: open %v, top %d; want it scrolled a row", k, got.help, got.helpTop)
		}
	}
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	m.help = true
	if mm, _ := m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"}); mm.(Model).help {
		t.Error("a key the help does not bind left it open")
	}
}

// TestPickerKeysAreItsBindings: every key the picker's bindings (and so
// its help and footer) name does what they say; the footer reads as
// before the bindings.
func TestPickerKeysAreItsBindings(t *testing.T) {
	var entries []rollout.IndexEntry
	for i := range 30 {
		entries = append(entries, rollout.IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("s%02d", i)), FirstPrompt: fmt.Sprintf("session %02d", i), UpdatedAt: t0.Add(-time.Duration(i) * time.Minute)})
	}
	press := func(p *picker, k string) string {
		id, _ := p.key(keyMsg(k))
		return id
	}
	for _, k := range pickerKeys.Down.Keys() {
		p := pickerWith(t, entries)
		if press(p, k); p.cursor != 1 {
			t.Errorf("%s: cursor %d, want 1", k, p.cursor)
		}
		for _, u := range pickerKeys.Up.Keys() {
			p.cursor = 1
			if press(p, u); p.cursor != 0 {
				t.Errorf("%s: cursor %d, want 0", u, p.cursor)
			}
		}
	}
	p := pickerWith(t, entries)
	if press(p, "pgdown"); p.cursor != 10 {
		t.Errorf("pgdown: cursor %d", p.cursor)
	}
	if press(p, "pgup"); p.cursor != 0 {
		t.Errorf("pgup: cursor %d", p.cursor)
	}
	if id := press(p, "enter"); id != "s00" {
		t.Errorf("enter resumed %q", id)
	}
	r := &renderer{th: newTheme()}
	if got := ansiStrip(p.footer(r, 120)); strings.TrimSpace(got) != "type filter · ↑↓ move · pgup pgdn page · enter resume · esc close" {
		t.Errorf("footer %q", got)
	}
	pressPicker(p, "1", "2")
	if press(p, "backspace"); p.filter != "1" {
		t.Errorf("backspace: filter %q", p.filter)
	}
	if got := ansiStrip(p.footer(r, 120)); !strings.Contains(got, "esc clear filter") {
		t.Errorf("filtering footer %q", got)
	}
	if press(p, "esc"); p.filter != "" || p.closed {
		t.Errorf("esc while filtering: filter %q closed %v", p.filter, p.closed)
	}
	if press(p, "esc"); !p.closed {
		t.Error("esc did not close")
	}
}
