package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
