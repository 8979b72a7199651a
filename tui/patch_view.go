package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// An apply_patch call shows as a diff, as Codex shows one: each file with
// what happens to it and its +/- counts, then its changed lines in colour.

// patchFile is one file of an apply_patch input.
type patchFile struct {
	op, path   string // op: A (add), M (update), D (delete)
	lines      []string
	add, del   int
	moveTarget string
}

// parsePatch reads the files of an apply_patch input ("*** Begin Patch"
// format). Lines it does not know are kept as context.
func parsePatch(input string) []patchFile {
	var files []patchFile
	var cur *patchFile
	for _, l := range strings.Split(input, "\n") {
		switch {
		case strings.HasPrefix(l, "*** Add File: "):
			files = append(files, patchFile{op: "A", path: strings.TrimPrefix(l, "*** Add File: ")})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "*** Update File: "):
			files = append(files, patchFile{op: "M", path: strings.TrimPrefix(l, "*** Update File: ")})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "*** Delete File: "):
			files = append(files, patchFile{op: "D", path: strings.TrimPrefix(l, "*** Delete File: ")})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "*** Move to: ") && cur != nil:
			cur.moveTarget = strings.TrimPrefix(l, "*** Move to: ")
		case strings.HasPrefix(l, "***") || cur == nil:
			// Begin/End Patch, End of File.
		default:
			cur.lines = append(cur.lines, l)
			if strings.HasPrefix(l, "+") {
				cur.add++
			} else if strings.HasPrefix(l, "-") {
				cur.del++
			}
		}
	}
	return files
}

// patchCounts sums the +/- counts of the files.
func patchCounts(files []patchFile) (add, del int) {
	for _, f := range files {
		add, del = add+f.add, del+f.del
	}
	return add, del
}

// patchLines renders the files of a patch at width w; collapsed, at most
// limit diff lines show.
func (r *renderer) patchLines(files []patchFile, w int, collapsed bool) []string {
	const limit = 8
	var out []string
	shown, hidden := 0, 0
	for _, f := range files {
		path := f.path
		if f.moveTarget != "" {
			path += " → " + f.moveTarget
		}
		out = append(out, "  "+r.patchFileTitle(f.op, path, f.add, f.del, w-2))
		for _, l := range f.lines {
			if collapsed && shown >= limit {
				hidden++
				continue
			}
			shown++
			out = append(out, "    "+r.diffLine(l, w-4))
		}
	}
	if hidden > 0 {
		out = append(out, r.th.dim.Render(clip(fmt.Sprintf("  … %d more lines (ctrl+o to expand)", hidden), w)))
	}
	return out
}

// patchFileTitle is a file's line of a diff: what happens to it, its
// path and its +/- counts, at most w wide.
func (r *renderer) patchFileTitle(op, path string, add, del, w int) string {
	counts := r.th.done.Render(fmt.Sprintf("+%d", add)) + " " + r.th.failed.Render(fmt.Sprintf("-%d", del))
	return r.th.cardTitle.Render(op+" "+clip(path, max(1, w-12))) + " " + counts
}

// diffLine is one line of a diff ("+", "-" or context), coloured, at most
// w wide.
func (r *renderer) diffLine(l string, w int) string {
	text := clipKeep(l, w)
	switch {
	case strings.HasPrefix(l, "+"):
		return r.th.done.Render(text)
	case strings.HasPrefix(l, "-"):
		return r.th.failed.Render(text)
	}
	return r.th.dim.Render(text)
}

// clipKeep shortens a line of code to n columns, keeping its indentation
// (tabs as four spaces), unlike clip, which collapses whitespace.
func clipKeep(s string, n int) string {
	s = strings.ReplaceAll(s, "\t", "    ")
	if lipglossWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return ansi.Truncate(s, n, "…")
}
