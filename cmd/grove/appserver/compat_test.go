package appserver

import (
	"strings"
	"testing"
)

// TestCompatMethods calls every method row of Compat: "not yet" must be
// -32601, anything else must not be.
func TestCompatMethods(t *testing.T) {
	f := newIDEFixture(t)
	c := f.startWith(t, Options{Host: f.host})
	defer c.close()
	c.initialize()
	for _, row := range Compat {
		if strings.Contains(row.Name, ":") || row.Name == "initialize" {
			continue // an item, or the handshake already done
		}
		m := c.call(row.Name, map[string]any{})
		code := 0
		if e, ok := m["error"].(map[string]any); ok {
			code = int(e["code"].(float64))
		}
		if notYet := row.Status == "not yet"; notYet != (code == -32601) {
			t.Errorf("%s is %q in the compatibility table but answered %v", row.Name, row.Status, m)
		}
	}
}
