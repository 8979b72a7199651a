package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A running command's card shows the last liveTailLines lines of its
// output, from the last liveTailBytes that arrived.
const (
	liveTailLines = 3
	liveTailBytes = 4 << 10
)

// keepTail keeps at most n bytes of the end of s, starting on a whole rune.
func keepTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// liveLines is the last n non-empty lines of untrusted command output,
// cleaned like progress text (a carriage return keeps what follows it, as
// a terminal would show a progress bar).
func liveLines(tail string, n int) []string {
	var out []string
	lines := strings.Split(tail, "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		l := lines[i]
		if j := strings.LastIndex(strings.TrimRight(l, "\r"), "\r"); j >= 0 {
			l = l[j+1:]
		}
		if l = progressLine(l); l != "" {
			out = append([]string{l}, out...)
		}
	}
	return out
}

// progressLine makes a tool's progress message (an MCP server's words, so
// untrusted) safe for one transcript line: escape sequences and control
// characters removed, the first non-empty line only.
func progressLine(msg string) string {
	msg = ansiStrip(msg)
	for _, l := range strings.Split(msg, "\n") {
		l = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, l)
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
