// Package visible makes text that a model, a command or a repository
// controls safe to put on a terminal: every character a terminal would act
// on instead of print — C0 controls (ESC, CR, BS, BEL…), DEL, C1 controls
// (U+0080–U+009F, which some terminals read as CSI/OSC), bytes that are not
// UTF-8 (a lone 0x9b is CSI to an 8-bit terminal), Unicode format
// characters (bidi overrides and isolates, zero-width spaces, tag
// characters) and line/paragraph separators — is shown as an escape
// (`\x1b`, `\r`, `\u202e`) instead of being written raw. Nothing is
// removed, so what a user approves is what they saw: `git status
// ESC[8m; touch PWNED #ESC[0m` reads `git status \x1b[8m; touch PWNED
// #\x1b[0m`, and an OSC 52 clipboard write arrives as text.
//
// It is the one sanitizer for every output path (the TUI, `grove exec`'s
// text mode, `grove sessions list`, `grove hooks list`, `grove doctor`,
// error messages); it knows nothing about who prints.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Line is s on one line: newlines and tabs are escaped too (a title, a
// note, a path, a command in a one-line list).
func Line(s string) string { return escape(s, false) }

// Text keeps s's line breaks and tabs ("\r\n" becomes "\n") and escapes
// every other control character (a command to approve, a question, a
// message, a patch).
func Text(s string) string {
	if strings.Contains(s, "\r\n") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return escape(s, true)
}

// Output is a command's or tool's output: complete escape sequences
// (colours, cursor moves, OSC titles, hyperlinks and clipboard writes) are
// removed, since output is read, not approved, and colour codes would
// otherwise bury it; what is left goes through Text, so a stray ESC, CR or
// bidi override still shows.
func Output(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 || strings.Contains(s, "\u009b") || strings.Contains(s, "\u009d") {
		s = ansi.Strip(s)
	}
	return Text(s)
}

// Clean reports whether s needs no escaping at all (with line breaks and
// tabs allowed when multiline). ASCII is checked a byte at a time; only
// the rest is decoded.
func Clean(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				if !multiline || c != '\n' && c != '\t' {
					return false
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || hidden(r, multiline) {
			return false
		}
		i += n
	}
	return true
}

// escape writes s with every hidden character escaped.
func escape(s string, multiline bool) string {
	if Clean(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r, multiline):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden reports whether a terminal would act on r, or r is invisible.
func hidden(r rune, multiline bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !multiline
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f: // C1 controls
		return true
	case r == 0x200d: // zero-width joiner: glues emoji, hides nothing on its own
		return false
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Cf, r) // bidi controls, zero-width, tags, BOM, soft hyphen
}

func escapeRune(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\t':
		return `\t`
	case '\r':
		return `\r`
	case '\b':
		return `\b`
	case 0x1b:
		return `\x1b`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	if r <= 0xffff {
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}
