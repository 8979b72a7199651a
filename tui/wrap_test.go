package tui

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// wrapPieces are the parts random texts are made of: hyphens alone, at a
// word's start and inside it, wide runes and emoji, words longer than any
// width, runs of spaces, newlines, combining marks, tabs, styled text.
var wrapPieces = []string{
	"word", "a", "well-known", "-run", "--count=1", "x-", "-", "--", " - ",
	"日本語", "😀", "👍🏽", "e\u0301", "é", "\t", strings.Repeat("y", 130),
	strings.Repeat("長", 70), "non\u00a0breaking", " ", "  ", "     ", "\n", "\n\n",
	"\x1b[1mbold\x1b[0m", "\x1b[2m dim \x1b[0m",
}

func randomWrapText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(40) {
		b.WriteString(wrapPieces[rng.IntN(len(wrapPieces))])
	}
	return b.String()
}

// checkWrap checks wrap's contract for one text and width: no row wider
// than w (unless it is one character wider than w), and nothing lost but
// newlines and spaces at breaks.
func checkWrap(t *testing.T, s string, w int) {
	t.Helper()
	rows := wrap(s, w)
	for i, r := range rows {
		if n := ansi.StringWidth(r); n > w && graphemes(r) != 1 {
			t.Fatalf("width %d: row %d is %d wide: %q\nof %q", w, i, n, r, s)
		}
		if strings.Contains(r, "\n") {
			t.Fatalf("row %d holds a newline: %q", i, r)
		}
	}
	// Every byte but spaces and newlines is kept, in order (escape codes too).
	keep := func(x string) string { return strings.NewReplacer(" ", "", "\n", "").Replace(x) }
	if got, want := keep(strings.Join(rows, "")), keep(s); got != want {
		t.Fatalf("width %d: text changed\n got %q\nwant %q", w, got, want)
	}
	// Visible text (zero-width characters and escape codes, checked
	// above, aside): each line gives rows that are pieces of it in order,
	// with only spaces left out between them and at its ends; a blank
	// line gives one row of (some of) its spaces.
	plain := make([]string, len(rows))
	for i, r := range rows {
		plain[i] = shownText(r)
	}
	for _, line := range strings.Split(shownText(s), "\n") {
		if len(plain) == 0 {
			t.Fatalf("width %d: no row for line %q of %q", w, line, s)
		}
		if strings.Trim(line, " ") == "" {
			if strings.Trim(plain[0], " ") != "" || len(plain[0]) > len(line) {
				t.Fatalf("width %d: blank line %q gave row %q", w, line, plain[0])
			}
			plain = plain[1:]
			continue
		}
		for pos := 0; strings.Trim(line[pos:], " ") != ""; plain = plain[1:] {
			if len(plain) == 0 {
				t.Fatalf("width %d: %q lost of %q", w, line[pos:], s)
			}
			idx := strings.Index(line[pos:], plain[0])
			if idx < 0 || strings.Trim(line[pos:pos+idx], " ") != "" {
				t.Fatalf("width %d: row %q does not follow %q in line %q", w, plain[0], line[:pos], line)
			}
			pos += idx + len(plain[0])
		}
	}
	if len(plain) > 0 {
		t.Fatalf("width %d: rows %q left over for %q", w, plain, s)
	}
}

// shownText is s without escape codes and zero-width characters.
func shownText(s string) string {
	var b strings.Builder
	for _, c := range wrapCells(nil, s) {
		if c.w > 0 || c.s == "\n" {
			b.WriteString(c.s)
		}
	}
	return b.String()
}

// graphemes counts the characters of a row (escape codes aside).
func graphemes(s string) int {
	n := 0
	for _, c := range wrapCells(nil, s) {
		if c.w > 0 {
			n++
		}
	}
	return n
}

// Random text at every width from 1 to 120 keeps wrap's contract.
func TestWrapProperty(t *testing.T) {
	for seed := range uint64(150) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s := randomWrapText(rng)
		for w := 1; w <= 120; w++ {
			checkWrap(t, s, w)
		}
	}
}

// The cases seen going wrong with ansi.Wrap, and where rows break.
func TestWrapCases(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want []string
	}{
		// ansi.Wrap kept the space before a hyphen it broke at: 23 and 33
		// columns wide, so the pane cut the last character.
		{"go test ./pkg/when/... -run Leap -count=1", 22, []string{"go test ./pkg/when/...", "-run Leap -count=1"}},
		{"go test ./pkg/when/... -run Leap -count=1", 32, []string{"go test ./pkg/when/... -run Leap", "-count=1"}},
		{"abc  -d", 4, []string{"abc", "-d"}},
		{"well-known words", 7, []string{"well-", "known", "words"}},
		{"--count", 3, []string{"--c", "oun", "t"}},
		{"日本語", 3, []string{"日", "本", "語"}},
		{"日本語", 1, []string{"日", "本", "語"}},
		{"a 😀b", 3, []string{"a", "😀b"}},
		{"a\n\n  b  ", 10, []string{"a", "", "  b  "}},
		{"ab    ", 3, []string{"ab"}},
		{"", 5, []string{""}},
	} {
		if got := wrap(c.s, c.w); !slices.Equal(got, c.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
		checkWrap(t, c.s, c.w)
	}
}

// The transcript's rows fit the pane at every width, so the renderer's
// clip never cuts a character (it did at a hyphen: "-run Leap " was a
// column too wide), and the text is all there.
func TestTranscriptRowsFitAtHyphens(t *testing.T) {
	const text = "go test ./pkg/when/... -run Leap -count=1 && echo well-known 日本語 😀-done"
	r := &renderer{th: newTheme()}
	for _, kind := range []entryKind{entryUser, entryInfo, entryWarning, entryError} {
		for w := 4; w <= 90; w++ {
			e := &entry{kind: kind, text: text, dirty: true}
			lines := r.lines(newSession(), e, w)
			var got strings.Builder
			for _, l := range lines {
				if n := ansi.StringWidth(l); n > w {
					t.Fatalf("kind %d width %d: %d-wide line %q", kind, w, n, l)
				}
				got.WriteString(ansi.Strip(l))
			}
			squeeze := strings.NewReplacer(" ", "", "│", "", "›", "", "✗", "", "!", "")
			if !strings.Contains(squeeze.Replace(got.String()), squeeze.Replace(text)) {
				t.Fatalf("kind %d width %d: text lost: %q", kind, w, lines)
			}
		}
	}
}
