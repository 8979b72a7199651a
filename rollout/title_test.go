package rollout

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

func TestFirstPrompt(t *testing.T) {
	notice := protocol.GroveNotice("hook context: the repo uses tabs")
	for _, tc := range []struct {
		name  string
		items []protocol.Item
		want  string
	}{
		{"user", []protocol.Item{protocol.UserMessage("fix the parser"), protocol.UserMessage("later")}, "fix the parser"},
		{"a notice first is no title", []protocol.Item{notice, protocol.UserMessage("fix the parser")}, "fix the parser"},
		{"a sub-agent's task", []protocol.Item{protocol.AgentMessage("p", "survey the repo")}, "survey the repo"},
		{"assistant only", []protocol.Item{protocol.AssistantMessage("hello")}, ""},
		{"empty text", []protocol.Item{protocol.UserMessage(""), protocol.UserMessage("second")}, "second"},
		{"notices only", []protocol.Item{notice}, ""},
	} {
		if got := FirstPrompt(tc.items); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
