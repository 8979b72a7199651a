package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pickerMatch is one entry the filter matches, with its score.
type pickerMatch struct {
	index int
	score int
}

// foldText lower-cases s once, for matching (picker entries are folded
// when loaded, the filter on each key).
func foldText(s string) string { return strings.ToLower(s) }

// matchScore reports whether pattern (folded) is a subsequence of text
// (folded) and how well it matches: a contiguous occurrence scores
// highest (more at a word start), then characters that follow each other
// or start words. One pass over text, so a filter over 100,000 sessions
// costs milliseconds per key.
func matchScore(pattern, text string) (int, bool) {
	if pattern == "" {
		return 0, true
	}
	score, ti, prev := 0, 0, -2
	for _, pr := range pattern {
		// The next occurrence of the character (IndexRune is a vectorised
		// byte search for ASCII).
		i := strings.IndexRune(text[ti:], pr)
		if i < 0 {
			return 0, false
		}
		found := ti + i
		_, size := utf8.DecodeRuneInString(text[found:])
		ti = found + size
		score++
		if found == prev+1 {
			score += 4
		}
		if found == 0 || isWordBreak(text[found-1]) {
			score += 2
		}
		prev = found
	}
	if i := strings.Index(text, pattern); i >= 0 {
		score += 50 + 2*len(pattern)
		if i == 0 || isWordBreak(text[i-1]) {
			score += 20
		}
	}
	return score, true
}

func isWordBreak(b byte) bool {
	return b < utf8.RuneSelf && (b == ' ' || unicode.IsPunct(rune(b)))
}
