package tui

import (
	"strings"
	"unicode"
)

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
