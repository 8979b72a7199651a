package patch

import "strings"

// seek finds pattern in lines at or after start and returns its index, or
// -1. It tries ever looser comparisons, as Codex's seek_sequence does:
// exact, ignoring trailing whitespace, ignoring surrounding whitespace,
// and finally also folding typographic punctuation (dashes, quotes,
// non-breaking spaces) to ASCII. With eof a match that ends the file is
// preferred.
func seek(lines, pattern []string, start int, eof bool) int {
	if start < 0 {
		start = 0
	}
	if len(pattern) == 0 {
		return min(start, len(lines))
	}
	if len(pattern) > len(lines) {
		return -1
	}
	for _, norm := range normalisers {
		if eof {
			if i := len(lines) - len(pattern); i >= start && matchAt(lines, pattern, i, norm) {
				return i
			}
		}
		for i := start; i+len(pattern) <= len(lines); i++ {
			if matchAt(lines, pattern, i, norm) {
				return i
			}
		}
	}
	return -1
}

var normalisers = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t\r") },
	strings.TrimSpace,
	func(s string) string { return strings.TrimSpace(punctuation.Replace(s)) },
}

func matchAt(lines, pattern []string, i int, norm func(string) string) bool {
	for j, p := range pattern {
		if norm(lines[i+j]) != norm(p) {
			return false
		}
	}
	return true
}

// punctuation folds the typographic characters models and editors swap
// for ASCII ones.
var punctuation = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`, "\u00AB", `"`, "\u00BB", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
	"\u2026", "...",
)
