package appserver

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// The session core judges turn/start's settings as it judges every front
// end's (the TUI's /model, ACP's set_mode, exec's flags): an unknown
// effort is refused in the core's words, and a valid one reaches the
// model request.
func TestTurnStartSettingsAreTheSessionCoresCheck(t *testing.T) {
	want := app.CheckTurnSettings(&protocol.TurnOverrides{ReasoningEffort: "max"}).Error()
	var log requestLog
	f := newFixture(t, log.wrap(treeScript))
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	r := c.call("turn/start", withOverrides(turnInput(root, "x"), "effort", "max"))
	e, _ := r["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, want) {
		t.Fatalf("effort max: %v, want the core's %q", r, want)
	}
	turnID := str(c.result("turn/start", withOverrides(turnInput(root, "hi"), "effort", "low")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if req := log.last(); req.ReasoningEffort != "low" {
		t.Fatalf("the model request's effort is %q, want low", req.ReasoningEffort)
	}
}
