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

// TestStreamingFinishedLinesAreMarkdown: in the block being written, a
// line that has ended already shows as Markdown (issue 35 item 25: the
// spawn summary's `**explorer**` showed raw until the paragraph ended);
// only the line being written is plain.
func TestStreamingFinishedLinesAreMarkdown(t *testing.T) {
	m, _ := newTestModel(t, 100, 40, newFake(rootInfo()))
	m = feed(m, delta(rootID, "Started **explorer** and `worker`:\n- **one** reads the parser\n- two"))
	s := screen(m)
	for _, raw := range []string{"**explorer**", "`worker`", "- **one**", "**one**"} {
		if strings.Contains(s, raw) {
			t.Fatalf("raw Markdown %q in a finished line while streaming:\n%s", raw, s)
		}
	}
	if !strings.Contains(s, "Started explorer and worker:") || !strings.Contains(s, "one reads the parser") || !strings.Contains(s, "- two") {
		t.Fatalf("streaming lines missing:\n%s", s)
	}
	// The line being written becomes Markdown once it ends.
	m = feed(m, delta(rootID, " **fixes** it\nnext"))
	if s := screen(m); strings.Contains(s, "**fixes**") || !strings.Contains(s, "two fixes it") {
		t.Fatalf("a line that ended stayed raw:\n%s", s)
	}
}
