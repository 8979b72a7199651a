package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func delta(id protocol.ThreadID, d string) protocol.Event {
	e := ev(protocol.EventMessageDelta, id, 3*time.Second)
	e.Delta = d
	return e
}

// TestStreamingMarkdownMatchesFinal: while a message streams, its finished
// blocks already look as they will when it completes (no raw ## or **, no
// jump of indent when it ends).
func TestStreamingMarkdownMatchesFinal(t *testing.T) {
	text := "## Plan\n\nFirst **fix** the parser:\n\n- one\n- two\n\n```go\nx := 1\n\ny := 2\n```\n\nThen run the tests"
	m, _ := newTestModel(t, 100, 40, newFake(rootInfo()))
	m = feed(m, delta(rootID, text[:len(text)-10]))
	streaming := screen(m)
	for _, raw := range []string{"**fix**", "- one"} {
		if strings.Contains(streaming, raw) {
			t.Fatalf("raw Markdown %q while streaming:\n%s", raw, streaming)
		}
	}
	m = feed(m, delta(rootID, text[len(text)-10:]))
	mid := screen(m)
	m = feed(m, message(rootID, text))
	final := screen(m)
	// Every line of the finished blocks stays where it was.
	midLines, finalLines := strings.Split(mid, "\n"), strings.Split(final, "\n")
	for i, l := range midLines[:len(midLines)-6] {
		if strings.Contains(l, "Then run") {
			break
		}
		if l != finalLines[i] {
			t.Fatalf("line %d moved when the message completed:\nstreaming %q\nfinal     %q", i, l, finalLines[i])
		}
	}
}

func TestStableCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"partial", 0},
		{"para\n\npartial", 6},
		{"a\n\n```\ncode\n\nmore", 3},
		{"a\n\n```\ncode\n\n```\n\nnext", 18},
		{"line\n", 0},
	} {
		if got := stableCut(c.in); got != c.want {
			t.Errorf("stableCut(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
