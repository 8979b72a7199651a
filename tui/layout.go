package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// fit pads or cuts lines to exactly w columns and h rows.
func fit(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := 0; i < h; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out[i] = padRight(l, w)
	}
	return out
}

// padRight cuts or pads one line to width w (ANSI-aware).
func padRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if n := w - lipgloss.Width(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// wrap soft-wraps text to width, keeping existing newlines.
func wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	return strings.Split(ansi.Wrap(s, w, " "), "\n")
}

// wrapFit is wrap for text that must be read whole (a command to
// approve). ansi.Wrap can leave a line over the width (a space kept
// before a break at a hyphen: "-run Leap -count"), which a clip would
// then cut; the trailing space goes and anything still over is broken.
// (The transcript keeps wrap: its streamed rows are cut incrementally.)
func wrapFit(s string, w int) []string {
	w = max(w, 1)
	var out []string
	for _, l := range strings.Split(ansi.Wrap(s, w, " "), "\n") {
		if ansi.StringWidth(l) > w {
			l = strings.TrimRight(l, " ")
		}
		if ansi.StringWidth(l) > w {
			out = append(out, strings.Split(ansi.Hardwrap(l, w, true), "\n")...)
			continue
		}
		out = append(out, l)
	}
	return out
}

// clip shortens plain text to n columns with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if lipgloss.Width(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return ansi.Truncate(s, n, "…")
}

// joinColumns places blocks of equal height side by side.
func joinColumns(cols ...[]string) []string {
	h := 0
	for _, c := range cols {
		h = max(h, len(c))
	}
	out := make([]string, h)
	for i := range out {
		var b strings.Builder
		for _, c := range cols {
			if i < len(c) {
				b.WriteString(c[i])
			}
		}
		out[i] = b.String()
	}
	return out
}
