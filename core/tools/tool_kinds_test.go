package tools

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Every handler says its kind, and it is the kind its name implies: a
// rollout recorded before calls carried a kind replays with the same one.
func TestEveryToolHasItsKind(t *testing.T) {
	r := NewRegistry()
	if err := RegisterAll(r); err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Names() {
		tool, _ := r.Get(name)
		k, ok := tool.(Kinded)
		if !ok {
			t.Errorf("%s does not say its kind", name)
			continue
		}
		if k.Kind() == protocol.ToolKindOther || k.Kind() != protocol.ToolKindOf(name) {
			t.Errorf("%s: kind %q, its name implies %q", name, k.Kind(), protocol.ToolKindOf(name))
		}
	}
}
