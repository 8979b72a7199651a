package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pickerMatch is one entry the filter matches, with its score; contiguous
// matches rank before all others (rank).
type pickerMatch struct {
	index      int
	score      int
	contiguous bool
}

// foldText lower-cases s once, for matching (picker entries are folded
// when loaded, the filter on each key).
func foldText(s string) string { return strings.ToLower(s) }

// matchScore reports whether pattern (folded) matches text (folded), how
// well, and whether it occurs whole. A match is either the pattern itself
// somewhere in text (scored highest, more at a word start), or its pieces
// at word starts: each character follows the one before it or begins a
// word, so "fp" finds "fix the parser" but "greet" no longer finds
// "migrate every package" (issue 35 item 26: scattered letters matched
// nearly everything). A space in the pattern ends a piece. One pass over
// text, so a filter over 100,000 sessions costs milliseconds per key.
func matchScore(pattern, text string) (score int, contiguous, ok bool) {
	if pattern == "" {
		return 0, false, true
	}
	if i := strings.Index(text, pattern); i >= 0 {
		score = 100 + 2*len(pattern)
		if i == 0 || isWordBreak(text[i-1]) {
			score += 20
		}
		return score, true, true
	}
	ti, inPiece := 0, false
	for _, pr := range pattern {
		if pr == ' ' {
			inPiece = false // the next piece starts a word
			continue
		}
		found := -1
		if r, _ := utf8.DecodeRuneInString(text[ti:]); inPiece && r == pr {
			found = ti // the piece goes on
			score += 4
		} else if found = nextWordStart(text, ti, pr); found < 0 {
			return 0, false, false
		}
		score++
		_, size := utf8.DecodeRuneInString(text[found:])
		ti, inPiece = found+size, true
	}
	return score, false, true
}

// nextWordStart is the first index at or after from where r begins a
// word, -1 when none.
func nextWordStart(text string, from int, r rune) int {
	for from < len(text) {
		i := strings.IndexRune(text[from:], r)
		if i < 0 {
			return -1
		}
		at := from + i
		if at == 0 || isWordBreak(text[at-1]) {
			return at
		}
		_, size := utf8.DecodeRuneInString(text[at:])
		from = at + size
	}
	return -1
}

func isWordBreak(b byte) bool {
	return b < utf8.RuneSelf && (b == ' ' || b == '/' || unicode.IsPunct(rune(b)))
}
