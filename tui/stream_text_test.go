package tui

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Streaming a message delta by delta, the incremental cut and wrap give
// exactly what scanning and wrapping the whole text gives, at every step:
// words of every length (longer than the width too), runs of spaces,
// newlines, blank lines, fences and wide characters.
func TestStreamTextMatchesFullRender(t *testing.T) {
	pieces := []string{"word", "a", "longerword", strings.Repeat("x", 37), " ", "  ", "   ", "\n", "\n\n", "```", "日本語", "é", "-", "\t", "well-known", "-run", "--", "😀"}
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 7))
		w := 1 + rng.IntN(30)
		var s streamText
		text := ""
		for range 200 {
			var d strings.Builder
			for range 1 + rng.IntN(4) {
				d.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text = s.appendDelta(d.String())
			cut := s.stableCut(text)
			if want := stableCut(text); cut != want {
				t.Fatalf("seed %d: cut %d, want %d in %q", seed, cut, want, text)
			}
			tail := strings.TrimLeft(text[cut:], "\n")
			if tail == "" {
				continue
			}
			got := s.tailRows(text, len(text)-len(tail), w)
			if want := wrap(tail, w); !slices.Equal(got, want) {
				t.Fatalf("seed %d width %d: rows differ for %q\n got %q\nwant %q", seed, w, tail, got, want)
			}
		}
	}
}

// A reset starts over: nothing of the old text is kept.
func TestStreamTextReset(t *testing.T) {
	var s streamText
	text := s.appendDelta(strings.Repeat("old words here\n\n", 20))
	_ = s.tailRows(text, s.stableCut(text), 10)
	s.reset()
	text = s.appendDelta("new")
	if text != "new" || s.stableCut(text) != 0 {
		t.Fatalf("after reset: %q cut %d", text, s.stableCut(text))
	}
	if got := s.tailRows(text, 0, 10); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("rows %q", got)
	}
}
