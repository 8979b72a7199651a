package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// TestTmuxModalFocusAndEsc is issue 35 items 1, 2 and 7 in the real
// binary with several agents: two workers ask at once while the root is
// shown; the root's pane says so (the modal belongs to the asker), tab
// goes to one asker, whose unique name is on the modal and the composer;
// approving starts its command; esc then interrupts that worker only —
// the other still waits for its answer, and nothing else stops.
func TestTmuxModalFocusAndEsc(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		last, _ := msgs[len(msgs)-1].(map[string]any)
		content := fmt.Sprint(last["content"])
		switch {
		case content == "spawn two":
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
				{ID: "s1", Name: "spawn_agent", Arguments: `{"agent_type":"worker","message":"job one"}`},
				{ID: "s2", Name: "spawn_agent", Arguments: `{"agent_type":"worker","message":"job two"}`},
			}}
		case last["role"] == "user" && strings.Contains(content, "job "):
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c", Name: "exec_command", Arguments: `{"cmd":"sleep 120"}`}}}
		case last["role"] == "tool" && len(msgs) > 3 && strings.Contains(fmt.Sprint(msgs), "spawn_agent"):
			return modeltest.Reply{Text: "both spawned"}
		}
		return modeltest.Reply{Text: "ok"}
	})
	env := "env OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + t.TempDir() + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 110, 32, env, "-C", t.TempDir(), "-a", "untrusted", "-m", "test-model", "-c", `model_providers.openai.wire_api="chat"`, "spawn two")
	s := p.wait("two requests waiting off screen", func(s string) bool {
		return strings.Contains(s, "waits for your approval (1 of 2) · tab to answer: sleep 120")
	})
	if strings.Contains(s, "Allow this command?") || strings.Count(s, "⚠ ") < 2 {
		t.Fatalf("a worker's modal over the root's pane, or the askers not badged:\n%s", s)
	}
	p.key("Tab")
	s = p.wait("the asker's modal", func(s string) bool {
		return strings.Contains(s, "Allow this command?") && strings.Contains(s, "enter answer")
	})
	m := regexp.MustCompile(`to (\S+) \(worker\)`).FindStringSubmatch(s)
	if m == nil || !strings.Contains(s, "asked by: "+m[1]+" (worker) · root → "+m[1]) {
		t.Fatalf("the modal and the composer do not name the same agent:\n%s", s)
	}
	asker := m[1]
	p.typeText("y")
	p.wait("the approved command running, the other request still waiting", func(s string) bool {
		return strings.Contains(s, "✔ You approved: sleep 120") && strings.Contains(s, "waits for your approval · tab to answer: sleep 120") && !strings.Contains(s, "Allow this command?")
	})
	p.key("Escape")
	s = p.wait("the focused worker interrupted", func(s string) bool { return strings.Contains(s, asker+" (worker) ‖") })
	if !strings.Contains(s, "waits for your approval · tab to answer: sleep 120") || strings.Count(s, "⚠ ") < 2 || strings.Contains(s, "‖ root") {
		t.Fatalf("esc stopped more than the focused worker:\n%s", s)
	}
	p.key("C-c")
	p.key("C-c")
}
