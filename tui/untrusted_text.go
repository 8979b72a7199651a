package tui

import (
	"strings"
	"unicode"
)

// untrustedOutput makes a command's output (the model's or a program's
// bytes: a tty session prints escape sequences) safe to draw: escape
// sequences removed (OSC 52 would write the user's clipboard, OSC 0 the
// title), a carriage return keeps what follows it as a terminal would show
// a progress bar, other control characters dropped, tabs kept.
func untrustedOutput(s string) string {
	lines := strings.Split(ansiStrip(s), "\n")
	for i, l := range lines {
		if j := strings.LastIndex(strings.TrimRight(l, "\r"), "\r"); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = strings.Map(func(r rune) rune {
			if r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
				return -1
			}
			return r
		}, l)
	}
	return strings.Join(lines, "\n")
}
