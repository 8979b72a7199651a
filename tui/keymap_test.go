package tui

import (
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// Every key the main screen handles is on the ? screen, spelled as the
// binding matches it: a binding added to the keymap without help, or help
// naming a key nobody handles, fails here.
func TestHelpShowsEveryHandledKey(t *testing.T) {
	m, _ := newTestModel(t, 120, 50, newFake(rootInfo()))
	m, _ = press(m, "?")
	shown := ansi.Strip(screen(m))
	v := reflect.ValueOf(keys)
	for i := range v.NumField() {
		b := v.Field(i).Interface().(key.Binding)
		if len(b.Keys()) == 0 {
			t.Fatalf("%s has no keys", v.Type().Field(i).Name)
		}
		for _, k := range b.Keys() {
			if !strings.Contains(shown, keyLabel([]string{k})) {
				t.Errorf("%s: key %q is handled but not in help", v.Type().Field(i).Name, k)
			}
		}
	}
	for _, r := range keys.FullHelp()[0] {
		if r.Help().Key != keyLabel(r.Keys()) {
			t.Errorf("help row %q shows keys %q, matches %q", r.Help().Desc, r.Help().Key, r.Keys())
		}
		if !strings.Contains(shown, r.Help().Desc) {
			t.Errorf("help row %q missing", r.Help().Desc)
		}
	}
}

// The status-line hints are the keymap's own bindings.
func TestStatusHintsComeFromKeymap(t *testing.T) {
	saved := keys.Agents
	defer func() { keys.Agents = saved }()
	keys.Agents = bind(saved.Help().Desc, "ctrl+y")
	m, _ := newTestModel(t, 120, 30, newFake(rootInfo()))
	if last := strings.Split(screen(m), "\n")[29]; !strings.Contains(last, "tab tree  ctrl+y agents  ? help") {
		t.Fatalf("status line %q", last)
	}
}
