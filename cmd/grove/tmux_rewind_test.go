package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// TestTmuxRewindForksWithTheMessage drives Esc Esc Enter on the real binary
// with a scripted model (Codex's backtrack, codex-rs/tui/src/
// app_backtrack.rs): two messages answered; esc esc selects the last one,
// named in the flash and highlighted in the transcript; enter opens a fork
// cut before it, with the message back in the composer to edit.
func TestTmuxRewindForksWithTheMessage(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		if strings.Contains(string(r.Raw), "second question") {
			return modeltest.Reply{Text: "answer to the second"}
		}
		return modeltest.Reply{Text: "answer to the first"}
	})
	work, home := t.TempDir(), t.TempDir()
	env := "env -u ZELLIJ OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + home + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 100, 30, env, "-C", work, "-m", "test-model", "first question")
	p.wait("the first answer", func(s string) bool { return strings.Contains(s, "answer to the first") })
	// By default (tui.alternate_screen auto, not in Zellij) the TUI is on
	// the alternate screen.
	if on := strings.TrimSpace(p.run("display-message", "-p", "-t", p.name, "#{alternate_on}")); on != "1" {
		t.Fatalf("alternate_on %q by default", on)
	}
	p.typeText("second question")
	p.key("Enter")
	p.wait("the second answer", func(s string) bool { return strings.Contains(s, "answer to the second") })

	p.key("Escape")
	p.wait("the rewind hint", func(s string) bool { return strings.Contains(s, "esc again to rewind") })
	p.key("Escape")
	p.wait("the selected message named", func(s string) bool {
		return strings.Contains(s, `rewind to before "second question"`) && strings.Contains(s, "enter forks here")
	})
	// The transcript marks it: its row has the selection's background,
	// the first message's row has none.
	colored := p.run("capture-pane", "-e", "-p", "-t", p.name)
	if !rowHasBackground(colored, "› second question") || rowHasBackground(colored, "› first question") {
		t.Fatalf("the selected message is not highlighted:\n%q", colored)
	}
	p.key("Enter")
	s := p.wait("the fork with the message in the composer", func(s string) bool {
		return strings.Contains(s, "rewound") && !strings.Contains(s, "answer to the second")
	})
	if !strings.Contains(s, "answer to the first") {
		t.Fatalf("the fork lost what came before the cut:\n%s", s)
	}
	// The composer holds the cut message: the row after the "to root" rule.
	rows := strings.Split(s, "\n")
	for i, l := range rows {
		if strings.Contains(l, "to root") && i+1 < len(rows) {
			if !strings.Contains(rows[i+1], "second question") {
				t.Fatalf("the composer does not hold the message:\n%s", s)
			}
			p.key("C-c")
			p.key("C-c")
			return
		}
	}
	t.Fatalf("no composer on screen:\n%s", s)
}

// rowHasBackground reports whether the captured row showing text (with its
// escapes, capture-pane -e) sets a background colour.
func rowHasBackground(capture, text string) bool {
	for _, row := range strings.Split(capture, "\n") {
		if !strings.Contains(sgr.ReplaceAllString(row, ""), text) {
			continue
		}
		for _, m := range sgr.FindAllStringSubmatch(row, -1) {
			ps := strings.Split(m[1], ";")
			for i := 0; i < len(ps); i++ {
				switch p := ps[i]; {
				case p == "48" || len(p) == 2 && p[0] == '4' && p[1] <= '7' || len(p) == 3 && strings.HasPrefix(p, "10"):
					return true
				case (p == "38" || p == "58") && i+1 < len(ps) && ps[i+1] == "5":
					i += 2 // a foreground (underline) colour's index
				case (p == "38" || p == "58") && i+1 < len(ps) && ps[i+1] == "2":
					i += 4 // its red, green and blue
				}
			}
		}
		return false
	}
	return false
}

// sgr matches a Select Graphic Rendition sequence; group 1 its parameters.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)
