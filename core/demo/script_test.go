package demo

import "testing"

// The demo's closing summary quotes each agent's first line; a line that
// introduced a code block must not leave the summary on a colon.
func TestFirstLineDoesNotDangle(t *testing.T) {
	for in, want := range map[string]string{
		"Added `Farewell` to greet.go and checked it:\n```\nok\n```": "Added `Farewell` to greet.go and checked it.",
		"The project has a main.go entry point.\nMore.":              "The project has a main.go entry point.",
		"done": "done",
	} {
		if got := firstLine(in); got != want {
			t.Errorf("firstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
